// XDMF document text declared in io/xdmf.hpp (the atomic write itself is io/atomic_file's). A
// 3DCoRectMesh counts nodes, one more than cells in each direction; the attributes are cell-centred with
// the cell counts as their dimensions. Names and file references are XML-escaped. Nothing here touches
// MPI or HDF5.
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

void append_grid(std::ostringstream& os, const Mesh& mesh, const Frame& f, const std::string& pad) {
  const auto int_text = [](int v) { return std::to_string(v); };
  const auto node_text = [](int v) { return std::to_string(v + 1); };
  const std::string cells = zyx(mesh.cells, int_text);
  os << pad << "<Grid Name=\"" << xml_escape(f.name) << "\" GridType=\"Uniform\">\n";
  os << pad << "  <Time Value=\"" << format_real(f.time) << "\"/>\n";
  os << pad << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << zyx(mesh.cells, node_text) << "\"/>\n";
  os << pad << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  os << pad << "    <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
     << "Format=\"XML\">" << zyx(mesh.origin, format_real) << "</DataItem>\n";
  os << pad << "    <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
     << "Format=\"XML\">" << zyx(mesh.spacing, format_real) << "</DataItem>\n";
  os << pad << "  </Geometry>\n";
  for (const auto& field : f.fields) {
    os << pad << "  <Attribute Name=\"" << xml_escape(field) << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n";
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
