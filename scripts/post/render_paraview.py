"""Renders one frame of a Stratus XDMF time series to a PNG with ParaView, without a display:

  pvbatch scripts/post/render_paraview.py FILE.xmf [-o OUT.png] [--field NAME] [--frame K]
  xvfb-run -a pvbatch scripts/post/render_paraview.py ...      (if pvbatch needs an X server)

FILE.xmf is either the grid time series NAME.xmf (or a single snapshot NAME_NNNNNN.xmf) of `stratus run`,
whose cell fields are drawn as a colour map on the whole domain for a 2D run (one extent of a single
cell) or on a mid-plane slice plus the domain outline in 3D, or the particle sidecar NAME.xmf of an H5MD
trajectory, whose atoms are drawn as points coloured by a per-atom field (vectors by their magnitude).
Colours: a field with both signs (w) or a perturbation (NAME_prime: theta') gets a diverging map centred
on 0, so that 0 is its neutral colour; a one-signed field Viridis over its range; species one colour each with a legend. Grids get axes
with ticks and the length unit, and the colour bar the field's unit (read with h5py when it imports).

  -o OUT.png      the image (default: FILE_FIELD_KKKKK.png next to FILE.xmf, K the frame)
  --field NAME    the field to colour by (default: the first one the file lists; species for particles)
  --frame K       the frame, 0-based; negative counts from the end (default: -1, the last)
  --normal x|y|z  the normal of the slice through the middle of a 3D grid (default: y, an x-z section)
  --size W H      image size in pixels (default: 1200 800)

Exit status 0 on success, 2 on bad input (missing file, not an XDMF file, unknown field, frame out of
range) or when ParaView's Python modules cannot be imported (run it with pvbatch or pvpython).
"""
import argparse
import os
import re
import sys


def fail(msg, code=2):
    print(f"render_paraview.py: error: {msg}", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    if "paraview" in sys.modules:  # SystemExit makes pvbatch tear down badly (X errors, exit status 1)
        os._exit(code)
    sys.exit(code)


def parse(argv):
    p = argparse.ArgumentParser(prog="render_paraview.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("xmf", metavar="FILE.xmf")
    p.add_argument("-o", "--output", metavar="OUT.png")
    p.add_argument("--field", metavar="NAME")
    p.add_argument("--frame", type=int, default=-1, metavar="K")
    p.add_argument("--normal", choices=["x", "y", "z"], default="y")
    p.add_argument("--size", type=int, nargs=2, default=[1200, 800], metavar=("W", "H"))
    a = p.parse_args(argv)
    if not os.path.isfile(a.xmf):
        fail(f"{a.xmf}: no such file")
    try:
        with open(a.xmf, encoding="utf-8", errors="replace") as fh:
            head = fh.read(1 << 16)
    except OSError as e:
        fail(f"{a.xmf}: cannot read ({e})")
    if "<Xdmf" not in head:
        fail(f"{a.xmf}: not an XDMF file (no <Xdmf> element)")
    a.particles = 'TopologyType="Polyvertex"' in head
    a.listed = re.findall(r'<Attribute Name="([^"]+)"', head)
    if min(a.size) < 16:
        fail("--size: at least 16 x 16 pixels")
    return a


def categorical_values(reader, field, assoc):
    """The distinct values of an integer-valued field with at most 12 of them (species), else None."""
    if field not in ("species", "type"):
        return None
    try:
        from paraview import servermanager
        from vtkmodules.util.numpy_support import vtk_to_numpy
        import numpy as np
        obj = servermanager.Fetch(reader)
        if obj.IsA("vtkMultiBlockDataSet"):
            obj = obj.GetBlock(0)
        arr = (obj.GetPointData() if assoc == "POINTS" else obj.GetCellData()).GetArray(field)
        values = np.unique(vtk_to_numpy(arr))
    except Exception:  # noqa: BLE001 - no numpy or no data: a continuous bar is still correct
        return None
    return [float(v) for v in values] if 0 < len(values) <= 12 else None


def indexed_colours(n):
    """n distinguishable RGB triples (Brewer Set1, then evenly spaced hues), flattened."""
    import colorsys
    set1 = [(0.894, 0.102, 0.110), (0.216, 0.494, 0.722), (0.302, 0.686, 0.290), (0.596, 0.306, 0.639),
            (1.0, 0.498, 0.0), (0.651, 0.337, 0.157), (0.969, 0.506, 0.749), (0.6, 0.6, 0.6), (1.0, 1.0, 0.2)]
    cols = set1[:n] + [colorsys.hsv_to_rgb(k / max(n - 9, 1), 0.8, 0.85) for k in range(max(n - 9, 0))]
    return [c for rgb in cols for c in rgb]


def units(xmf, field, particles):
    """{"length": ..., "field": ...} read from the HDF5 file the XDMF names (h5py; "" when unknown)."""
    out = {"length": "", "field": "", "axes": ["x", "y", "z"]}
    try:
        import h5py
        with open(xmf, encoding="utf-8", errors="replace") as fh:
            m = re.search(r">([^<>:]+\.h5(?:md)?):", fh.read(1 << 16))
        if not m:
            return out
        with h5py.File(os.path.join(os.path.dirname(os.path.abspath(xmf)), m.group(1)), "r") as f:
            text = lambda v: v.decode() if isinstance(v, bytes) else str(v)  # noqa: E731
            if particles:
                out["length"] = text(f["parameters"].attrs.get("length_unit", ""))
            else:
                out["length"] = text(f.attrs.get("length_unit", ""))
                # A 2D grid lies in ParaView's x-y plane: its directions of more than one cell, in order.
                cells = list(f.attrs.get("global_cells", [2, 2, 2]))
                wide = [d for d, n in zip("xyz", cells) if n > 1]
                if len(wide) < 3:
                    out["axes"] = wide + [d for d in "xyz" if d not in wide]
                if f"fields/{field}" in f:
                    out["field"] = text(f[f"fields/{field}"].attrs.get("unit", ""))
    except Exception:  # noqa: BLE001 - units are a label; the picture is right without them
        pass
    return out


def main(argv):
    a = parse(argv)
    try:
        import paraview.simple as pv
    except ImportError as e:
        fail(f"cannot import paraview.simple ({e}); run this script with pvbatch (or pvpython)")
    if not os.environ.get("DISPLAY"):  # an X11 build of ParaView would abort without a display
        try:
            import importlib
            importlib.import_module("vtkmodules.vtkRenderingOpenGL2")  # registers the platform's window
            from vtkmodules.vtkRenderingCore import vtkRenderWindow
            x11 = vtkRenderWindow().GetClassName() == "vtkXOpenGLRenderWindow"
        except ImportError:
            x11 = False
        if x11:
            fail("no X display ($DISPLAY is not set) and this ParaView renders through X11: run it as "
                 "'xvfb-run -a pvbatch render_paraview.py ...'")

    reader = pv.XDMFReader(FileNames=[os.path.abspath(a.xmf)])
    reader.UpdatePipelineInformation()
    times = reader.TimestepValues
    times = [] if times is None else (list(times) if hasattr(times, "__len__") else [times])
    nframes = max(len(times), 1)
    k = a.frame + nframes if a.frame < 0 else a.frame
    if not 0 <= k < nframes:
        fail(f"{a.xmf}: --frame {a.frame} out of range; the file has {nframes} frame(s)")
    t = times[k] if times else 0.0
    reader.UpdatePipeline(t)

    # Particles and 2D grids carry point data (a 2D grid's nodes are its cell centres), 3D grids cell data.
    cell = not a.particles and len(reader.CellData.keys()) > 0
    data = reader.CellData if cell else reader.PointData
    names = list(data.keys())
    if not names:
        fail(f"{a.xmf}: no fields to colour by")
    listed = [n for n in a.listed if n in names] + names  # the file's order; ParaView sorts the names
    field = a.field or ("species" if a.particles and "species" in names else listed[0])
    if field not in names:
        fail(f"{a.xmf}: unknown field '{field}'; the file has {', '.join(names)}")
    ncomp = data[field].GetNumberOfComponents()
    assoc = "CELLS" if cell else "POINTS"
    stem = os.path.splitext(a.xmf)[0]
    out = a.output or f"{stem}_{field}_{k:05d}.png"

    view = pv.CreateView("RenderView")
    view.ViewSize = list(a.size)
    view.ViewTime = t
    view.Background = [1.0, 1.0, 1.0]
    try:  # ParaView >= 5.10: a custom background needs this switched off
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 1

    b = reader.GetDataInformation().GetBounds()  # xmin, xmax, ymin, ymax, zmin, zmax
    centre = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])]
    extent = [b[1] - b[0], b[3] - b[2], b[5] - b[4]]
    if a.particles:
        disp = pv.Show(reader, view)
        disp.Representation = "Points"
        disp.PointSize = 4.0
        try:
            disp.RenderPointsAsSpheres = 1
        except AttributeError:
            pass
        look = 1  # an oblique view is set below
    else:
        ext = reader.GetDataInformation().GetExtent()  # node indices: cells = ext[2i+1] - ext[2i]
        flat = [i for i in range(3) if ext[2 * i + 1] - ext[2 * i] <= (1 if cell else 0)]
        if flat:  # a 2D run: the whole field, seen along its single-cell direction
            look = flat[-1]
            disp = pv.Show(reader, view)
            disp.Representation = "Surface"
        else:
            look = "xyz".index(a.normal)
            outline = pv.Show(reader, view)
            outline.Representation = "Outline"
            pv.ColorBy(outline, None)
            outline.AmbientColor = outline.DiffuseColor = [0.2, 0.2, 0.2]
            cut = pv.Slice(Input=reader)
            cut.SliceType = "Plane"
            cut.SliceType.Origin = centre
            cut.SliceType.Normal = [1.0 if i == look else 0.0 for i in range(3)]
            disp = pv.Show(cut, view)
            disp.Representation = "Surface"
    if ncomp > 1:
        pv.ColorBy(disp, (assoc, field, "Magnitude"))
    else:
        pv.ColorBy(disp, (assoc, field))
    lut = pv.GetColorTransferFunction(field)
    lo, hi = data[field].GetRange(-1 if ncomp > 1 else 0)
    categories = categorical_values(reader, field, assoc) if ncomp == 1 else None
    if categories is not None:  # species, types: one colour each, a legend instead of a bar
        lut.InterpretValuesAsCategories = 1
        lut.ApplyPreset("Brewer Qualitative Set1" if len(categories) <= 9 else "KAAMS", True)
        lut.Annotations = [x for v in categories for x in (f"{v:g}", f"{field} {v:g}")]
        lut.IndexedColors = indexed_colours(len(categories))
    elif lo < 0.0 < hi or field.endswith("_prime"):
        # signed (w) or a perturbation (theta'): diverging, centred on 0 so that 0 is the neutral colour
        m = max(-lo, hi, 1e-300)
        lut.ApplyPreset("Cool to Warm", True)
        lut.RescaleTransferFunction(-m, m)
    else:
        lut.ApplyPreset("Viridis (matplotlib)", True)
        lut.RescaleTransferFunction(lo, hi if hi > lo else lo + 1.0)
    lut.AutomaticRescaleRangeMode = "Never"
    disp.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(lut, view)
    unit = units(a.xmf, field, a.particles)
    bar.Title = field + (" (magnitude)" if ncomp > 1 else "") + (f" [{unit['field']}]" if unit["field"] else "")
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    if not a.particles:  # axes with ticks and the length unit around the field
        grid = disp.DataAxesGrid
        grid.GridAxesVisibility = 1
        lu = f" [{unit['length']}]" if unit["length"] else ""
        grid.XTitle, grid.YTitle, grid.ZTitle = (f"{d}{lu}" for d in unit["axes"])
        for k_ in ("XTitleColor", "YTitleColor", "ZTitleColor", "XLabelColor", "YLabelColor", "ZLabelColor",
                   "GridColor"):
            setattr(grid, k_, [0.0, 0.0, 0.0])

    title = pv.Text(Text=f"{os.path.basename(a.xmf)}  {field}  frame {k} of {nframes}, t = {t:g}")
    tdisp = pv.Show(title, view)
    tdisp.WindowLocation = "Upper Center"
    tdisp.FontSize = 14
    tdisp.Color = [0.0, 0.0, 0.0]

    # Camera: along the single-cell or slice-normal direction for grids (z up when looking along x or
    # y), an oblique view of the box for particles.
    view.CameraFocalPoint = centre
    size = max(extent) or 1.0
    if a.particles:
        view.CameraPosition = [centre[0] + 1.6 * size, centre[1] - 2.2 * size, centre[2] + 1.3 * size]
        view.CameraViewUp = [0.0, 0.0, 1.0]
    else:
        pos = list(centre)
        pos[look] += (-1.0 if look == 1 else 1.0) * 3.0 * size
        view.CameraPosition = pos
        view.CameraViewUp = [0.0, 1.0, 0.0] if look == 2 else [0.0, 0.0, 1.0]
    view.ResetCamera()
    if not a.particles:
        view.CameraParallelProjection = 1
        view.ResetCamera()
    pv.Render(view)
    try:
        pv.SaveScreenshot(out, view, ImageResolution=list(a.size))
    except Exception as e:  # ParaView raises plain RuntimeErrors
        fail(f"{out}: cannot write ({e})")
    if not os.path.isfile(out) or os.path.getsize(out) == 0:
        fail(f"{out}: ParaView wrote no image")
    print(f"wrote {out} ({field}, frame {k} of {nframes}, t = {t:g})")


if __name__ == "__main__":
    # No sys.exit on success: under pvbatch it ends with an X error and exit status 1 (ParaView 5.11).
    main(sys.argv[1:])
