"""Renders one frame of a Stratus XDMF time series to a PNG with ParaView, without a display:

  pvbatch scripts/post/render_paraview.py FILE.xmf [-o OUT.png] [--field NAME] [--frame K]
  xvfb-run -a pvbatch scripts/post/render_paraview.py ...      (if pvbatch needs an X server)

FILE.xmf is either the grid time series NAME.xmf (or a single snapshot NAME_NNNNNN.xmf) of `stratus run`,
whose cell fields are drawn as a colour map on the whole domain for a 2D run (one extent of a single
cell) or on a mid-plane slice plus the domain outline in 3D, or the particle sidecar NAME.xmf of an H5MD
trajectory, whose atoms are drawn as points coloured by a per-atom field (vectors by their magnitude).

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

    data = reader.PointData if a.particles else reader.CellData
    names = list(data.keys())
    if not names:
        fail(f"{a.xmf}: no {'point' if a.particles else 'cell'} fields to colour by")
    listed = [n for n in a.listed if n in names] + names  # the file's order; ParaView sorts the names
    field = a.field or ("species" if a.particles and "species" in names else listed[0])
    if field not in names:
        fail(f"{a.xmf}: unknown field '{field}'; the file has {', '.join(names)}")
    ncomp = data[field].GetNumberOfComponents()
    assoc = "POINTS" if a.particles else "CELLS"
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
        flat = [i for i in range(3) if ext[2 * i + 1] - ext[2 * i] <= 1]
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
    disp.RescaleTransferFunctionToDataRange(True, False)
    lut = pv.GetColorTransferFunction(field)
    lut.ApplyPreset("Cool to Warm" if not a.particles else "Viridis (matplotlib)", True)
    disp.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = field + (" (magnitude)" if ncomp > 1 else "")
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]

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
