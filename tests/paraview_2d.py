"""pvbatch tests/paraview_2d.py FILE.xmf NX NZ H5: a 2D (x-z) snapshot series as ParaView opens it.

ParaView must see NX x NZ values on a grid flat in its z, in its x-y plane (the run's x across, its z up,
at the cell centres), shown as a surface ("Slice" or "Surface", not "Outline") facing the default camera,
and the value at each point must be the snapshot's (H5, the first frame's file) at that cell. Prints
"ok ..." and exits 0, or prints FAIL lines and exits 1 (os._exit: pvbatch tears down badly on SystemExit).
"""
import os
import sys

import h5py
import numpy as np
import paraview.simple as pv
from paraview import servermanager
from vtkmodules.util.numpy_support import vtk_to_numpy

path, nx, nz, h5 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
reader = pv.XDMFReader(FileNames=[os.path.abspath(path)])
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues or [0.0])
reader.UpdatePipeline(times[0])
info = reader.GetDataInformation()
bad = []
if info.GetNumberOfPoints() != nx * nz:
    bad.append(f"{info.GetNumberOfPoints()} points, expected {nx} x {nz}")
ext = info.GetExtent()
if (ext[1] - ext[0], ext[3] - ext[2], ext[5] - ext[4]) != (nx - 1, nz - 1, 0):
    bad.append(f"extent {ext}: not x across, z up, flat")
view = pv.CreateView("RenderView")
disp = pv.Show(reader, view)
view.ResetCamera()
if disp.Representation not in ("Slice", "Surface"):
    bad.append(f"default representation {disp.Representation}, expected a surface")
look = [f - p for f, p in zip(view.CameraFocalPoint, view.CameraPosition)]
if abs(look[2]) < 0.99 * np.linalg.norm(look):
    bad.append(f"the default camera looks along {look}, not at the plane")
with h5py.File(h5, "r") as f:
    want = f["fields/theta_prime"][()].reshape(nz, nx)
    dx, dz = f.attrs["spacing"][0], f.attrs["spacing"][2]
    lo = f.attrs["origin"]
img = servermanager.Fetch(reader)
if img.IsA("vtkMultiBlockDataSet"):
    img = img.GetBlock(0)
got = vtk_to_numpy(img.GetPointData().GetArray("theta_prime")).reshape(nz, nx)
if not np.array_equal(got, want):
    bad.append(f"theta_prime differs from the snapshot by {np.abs(got - want).max()}")
b = info.GetBounds()
centres = (lo[0] + 0.5 * dx, lo[0] + (nx - 0.5) * dx, lo[2] + 0.5 * dz, lo[2] + (nz - 0.5) * dz)
if not np.allclose(b[:4], centres):
    bad.append(f"bounds {b[:4]}, expected the cell centres {centres}")
for m in bad:
    print("FAIL:", m)
print(f"{'ok' if not bad else 'FAIL'}: {path}: {info.GetNumberOfPoints()} points, extent {ext}, "
      f"{disp.Representation}, values equal to the snapshot's")
sys.stdout.flush()
os._exit(1 if bad else 0)
