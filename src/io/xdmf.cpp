// XDMF document text declared in io/xdmf.hpp (the atomic write itself is io/atomic_file's). Names and file
// references are XML-escaped. Nothing here touches MPI or HDF5.
//
// A 3D grid is a 3DCoRectMesh of nodes, one more than cells in each direction, with cell-centred
// attributes. A grid with a direction of a single cell (2D x-z or x-y runs, 1D runs) is written so that
// ParaView and VisIt open it as a surface: VTK's XDMF reader gives a flat cell-centred mesh no cell data,
// and shows a one-cell-thick volume as an outline. So the cell centres become the nodes (the values are
// exact there; ParaView interpolates between them), the remaining directions in x, y, z order become
// VTK's x and y, and its z is flat: a 2D x-z run lies in ParaView's x-y plane, facing its default camera,
// with the run's z as the vertical axis (ParaView's y). The HDF5 datasets are the same (nz, ny, nx)
// arrays; their DataItem gives the same values with the single-cell dimension moved first.
#include "io/xdmf.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "io/atomic_file.hpp"

namespace stratus::xdmf {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// "a b c" from an (x, y, z) triple, reversed to XDMF's (z, y, x).
template <class T, class F>
std::string zyx(const T& v, F&& fmt) {
  return fmt(v[2]) + " " + fmt(v[1]) + " " + fmt(v[0]);
}

/// The mesh as XDMF writes it: node counts, origin and spacing in (x, y, z) order, and where the data sit.
struct Layout {
  Int3 nodes{};
  Real3 origin{}, spacing{};
  bool cell_centred = true;
};

Layout layout_of(const Mesh& mesh) {
  Layout l;
  std::vector<int> dirs;  // the directions of more than one cell
  for (int d = 0; d < 3; ++d)
    if (mesh.cells[d] > 1) dirs.push_back(d);
  if (dirs.size() == 3) {
    for (int d = 0; d < 3; ++d) l.nodes[d] = mesh.cells[d] + 1;
    l.origin = mesh.origin;
    l.spacing = mesh.spacing;
    return l;
  }
  l.cell_centred = false;
  l.nodes = Int3{1, 1, 1};
  l.origin = Real3{0.0, 0.0, 0.0};
  l.spacing = Real3{1.0, 1.0, 1.0};
  for (std::size_t k = 0; k < dirs.size(); ++k) {
    const int d = dirs[k];
    l.nodes[k] = mesh.cells[d];
    l.origin[k] = mesh.origin[d] + 0.5 * mesh.spacing[d];
    l.spacing[k] = mesh.spacing[d];
  }
  return l;
}

void append_grid(std::ostringstream& os, const Mesh& mesh, const Frame& f, const std::string& pad) {
  const auto int_text = [](int v) { return std::to_string(v); };
  const Layout l = layout_of(mesh);
  const std::string nodes = zyx(l.nodes, int_text);
  const std::string cells = l.cell_centred ? zyx(mesh.cells, int_text) : nodes;
  os << pad << "<Grid Name=\"" << xml_escape(f.name) << "\" GridType=\"Uniform\">\n";
  os << pad << "  <Time Value=\"" << format_real(f.time) << "\"/>\n";
  os << pad << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << nodes << "\"/>\n";
  os << pad << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  os << pad << "    <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
     << "Format=\"XML\">" << zyx(l.origin, format_real) << "</DataItem>\n";
  os << pad << "    <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
     << "Format=\"XML\">" << zyx(l.spacing, format_real) << "</DataItem>\n";
  os << pad << "  </Geometry>\n";
  for (const auto& field : f.fields) {
    os << pad << "  <Attribute Name=\"" << xml_escape(field) << "\" AttributeType=\"Scalar\" Center=\""
       << (l.cell_centred ? "Cell" : "Node") << "\">\n";
    os << pad << "    <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"" << cells << "\">"
       << xml_escape(f.h5_file) << ":/fields/" << xml_escape(field) << "</DataItem>\n";
    os << pad << "  </Attribute>\n";
  }
  os << pad << "</Grid>\n";
}

const char* kHead =
    "<?xml version=\"1.0\" ?>\n"
    "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    "<Xdmf Version=\"2.0\">\n"
    "  <Domain>\n";
const char* kTail =
    "  </Domain>\n"
    "</Xdmf>\n";

}  // namespace

std::string format_real(double v) {
  // 17 significant digits always round-trip, but most values need fewer; the shortest exact text keeps
  // the files readable (0.1 rather than 0.10000000000000001).
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string frame_document(const Mesh& mesh, const Frame& frame) {
  std::ostringstream os;
  os << kHead;
  append_grid(os, mesh, frame, "    ");
  os << kTail;
  return os.str();
}

std::string series_entry(const Mesh& mesh, const Frame& frame) {
  std::ostringstream os;
  append_grid(os, mesh, frame, "      ");
  return os.str();
}

std::string series_document(const std::string& name, const std::vector<std::string>& entries) {
  const std::string head = std::string(kHead) + "    <Grid Name=\"" + xml_escape(name) +
                           "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const std::string tail = std::string("    </Grid>\n") + kTail;
  std::size_t size = head.size() + tail.size();
  for (const auto& e : entries) size += e.size();
  std::string doc;
  doc.reserve(size);
  doc += head;
  for (const auto& e : entries) doc += e;
  return doc += tail;
}

std::string series_document(const std::string& name, const Mesh& mesh, const std::vector<Frame>& frames) {
  std::vector<std::string> entries;
  entries.reserve(frames.size());
  for (const auto& f : frames) entries.push_back(series_entry(mesh, f));
  return series_document(name, entries);
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, text, Durability::renamed);
}

}  // namespace stratus::xdmf
