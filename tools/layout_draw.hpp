// loom-layout draw: pictures of layouts as SVG or as a TikZ (LaTeX) document.
//
// A picture is a set of panels, each a grid of cells with a one- or two-line label and a colour.
// Plain layouts label each cell with its offset and colour it by offset; thread-value layouts
// (TV layouts, a TiledMMA's A, B and C, a TiledCopy's source and destination) label the cell with
// the thread and value that hold it, "T5" over "V3", and colour it by thread, eight colours in turn.
// A cell that no thread holds stays white; a cell that several hold shows the first one, by thread
// then value.
#pragma once

#include <string>
#include <vector>

#include "layout/layout.hpp"

namespace loom_draw {

using loom::i64;

struct Cell {
  std::string top, bottom;  // label lines; bottom may be empty
  int color = -1;           // index into the palette; -1 is white
};

struct Panel {
  std::string title;
  i64 row0 = 0, col0 = 0;  // position in cells, the title and index headers excluded
  i64 rows = 0, cols = 0;
  std::vector<Cell> cells;  // row-major
  Cell& at(i64 r, i64 c) { return cells[size_t(r * cols + c)]; }
  Cell const& at(i64 r, i64 c) const { return cells[size_t(r * cols + c)]; }
};

// Eight light colours, distinct in print and on screen, so neighbouring threads stand apart.
inline constexpr char const* kPalette[8] = {"#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f",
                                            "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"};
inline constexpr unsigned char kPaletteRgb[8][3] = {{166, 206, 227}, {178, 223, 138}, {251, 154, 153}, {253, 191, 111},
                                                    {202, 178, 214}, {255, 255, 153}, {141, 211, 199}, {217, 217, 217}};

inline Panel make_panel(std::string title, i64 rows, i64 cols, i64 row0 = 0, i64 col0 = 0) {
  Panel p;
  p.title = std::move(title);
  p.rows = rows;
  p.cols = cols;
  p.row0 = row0;
  p.col0 = col0;
  p.cells.resize(size_t(rows * cols));
  return p;
}

// A layout of rank 1 or 2: rows are mode 0, columns mode 1 (rank 1: one column), each cell its
// offset, coloured by offset.
inline Panel layout_panel(loom::Layout const& l, std::string title) {
  i64 rows = loom::size(loom::get(l, 0)).v;
  i64 cols = loom::rank(l) >= 2 ? loom::size(loom::get(l, 1)).v : 1;
  Panel p = make_panel(std::move(title), rows, cols);
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) {
      i64 v = loom::rank(l) >= 2 ? l(loom::make_coord(r, c)) : l(loom::IntTuple(r));
      Cell& cell = p.at(r, c);
      cell.top = std::to_string(v);
      cell.color = int(((v % 8) + 8) % 8);
    }
  return p;
}

// A TV layout (thread, value) -> column-major index into a rows x cols tile. transpose draws the
// tile's mode 0 along columns (B of an MMA: N across, K down). Indices outside the tile are
// reported by the caller beforehand (tv_fits).
inline Panel tv_panel(loom::Layout const& tv, i64 rows, i64 cols, std::string title, bool transpose = false,
                      i64 row0 = 0, i64 col0 = 0) {
  Panel p = transpose ? make_panel(std::move(title), cols, rows, row0, col0) : make_panel(std::move(title), rows, cols, row0, col0);
  i64 threads = loom::size(loom::get(tv, 0)).v;
  i64 values = loom::size(tv).v / threads;
  for (i64 t = 0; t < threads; ++t)
    for (i64 v = 0; v < values; ++v) {
      i64 idx = tv(loom::IntTuple(t + threads * v));
      i64 m = idx % rows, n = idx / rows;
      Cell& cell = transpose ? p.at(n, m) : p.at(m, n);
      if (cell.color >= 0) continue;
      cell.top = "T" + std::to_string(t);
      cell.bottom = "V" + std::to_string(v);
      cell.color = int(t % 8);
    }
  return p;
}

// The first index of tv outside [0, rows*cols), or -1.
inline i64 tv_outside(loom::Layout const& tv, i64 cells) {
  i64 n = loom::size(tv).v;
  for (i64 i = 0; i < n; ++i) {
    i64 idx = tv(loom::IntTuple(i));
    if (idx < 0 || idx >= cells) return i;
  }
  return -1;
}

namespace detail {
constexpr int kCellW = 36, kCellH = 30, kMargin = 10, kHeader = 16;  // SVG units (pixels)

inline std::string xml_escape(std::string const& s) {
  std::string r;
  for (char c : s) {
    if (c == '<') r += "&lt;";
    else if (c == '>') r += "&gt;";
    else if (c == '&') r += "&amp;";
    else if (c == '"') r += "&quot;";
    else r += c;
  }
  return r;
}
}  // namespace detail

// An SVG document: every cell is a <rect class="cell"> followed by its <text class="label">
// (two <tspan>s for two lines); each panel has a <text class="title"> and row and column indices
// (<text class="index">).
inline std::string to_svg(std::vector<Panel> const& panels) {
  using namespace detail;
  i64 max_r = 0, max_c = 0;
  for (Panel const& p : panels) {
    max_r = std::max(max_r, p.row0 + p.rows);
    max_c = std::max(max_c, p.col0 + p.cols);
  }
  // Each panel is offset by a header band (title) and an index column/row.
  auto px = [](i64 col) { return kMargin + kHeader + col * kCellW; };
  auto py = [](i64 row) { return kMargin + 2 * kHeader + row * kCellH; };
  i64 width = px(max_c) + kMargin, height = py(max_r) + kMargin;
  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
       std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
       "\" font-family=\"monospace\" font-size=\"10\">\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
       "\" fill=\"white\"/>\n";
  for (Panel const& p : panels) {
    i64 x0 = px(p.col0), y0 = py(p.row0);
    s += "<g class=\"panel\">\n";
    s += "<text class=\"title\" x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(y0 - kHeader - 4) +
         "\" font-weight=\"bold\">" + xml_escape(p.title) + "</text>\n";
    for (i64 c = 0; c < p.cols; ++c)
      s += "<text class=\"index\" x=\"" + std::to_string(x0 + c * kCellW + kCellW / 2) + "\" y=\"" +
           std::to_string(y0 - 4) + "\" text-anchor=\"middle\" fill=\"#666\">" + std::to_string(c) + "</text>\n";
    for (i64 r = 0; r < p.rows; ++r)
      s += "<text class=\"index\" x=\"" + std::to_string(x0 - 4) + "\" y=\"" +
           std::to_string(y0 + r * kCellH + kCellH / 2 + 4) + "\" text-anchor=\"end\" fill=\"#666\">" +
           std::to_string(r) + "</text>\n";
    for (i64 r = 0; r < p.rows; ++r)
      for (i64 c = 0; c < p.cols; ++c) {
        Cell const& cell = p.at(r, c);
        i64 x = x0 + c * kCellW, y = y0 + r * kCellH;
        s += "<rect class=\"cell\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
             std::to_string(kCellW) + "\" height=\"" + std::to_string(kCellH) + "\" fill=\"" +
             (cell.color >= 0 ? kPalette[cell.color] : "white") + "\" stroke=\"black\"/>\n";
        std::string cx = std::to_string(x + kCellW / 2);
        if (cell.bottom.empty()) {
          s += "<text class=\"label\" x=\"" + cx + "\" y=\"" + std::to_string(y + kCellH / 2 + 4) +
               "\" text-anchor=\"middle\">" + xml_escape(cell.top) + "</text>\n";
        } else {
          s += "<text class=\"label\" x=\"" + cx + "\" y=\"" + std::to_string(y + kCellH / 2 - 2) +
               "\" text-anchor=\"middle\"><tspan x=\"" + cx + "\">" + xml_escape(cell.top) + "</tspan><tspan x=\"" +
               cx + "\" dy=\"11\">" + xml_escape(cell.bottom) + "</tspan></text>\n";
        }
      }
    s += "</g>\n";
  }
  s += "</svg>";
  return s;
}

// A standalone LaTeX document with one tikzpicture: one unit per cell, rows going down.
inline std::string to_latex(std::vector<Panel> const& panels) {
  std::string s;
  s += "\\documentclass[tikz]{standalone}\n";
  for (int i = 0; i < 8; ++i)
    s += "\\definecolor{loom" + std::string(1, char('a' + i)) + "}{RGB}{" + std::to_string(kPaletteRgb[i][0]) + "," +
         std::to_string(kPaletteRgb[i][1]) + "," + std::to_string(kPaletteRgb[i][2]) + "}\n";
  s += "\\begin{document}\n";
  s += "\\begin{tikzpicture}[x={(0.8cm,0cm)},y={(0cm,-0.6cm)},every node/.style={font=\\tiny,align=center}]\n";
  for (Panel const& p : panels) {
    // One header row for the title and one for column indices; one column for row indices.
    i64 x0 = 1 + p.col0, y0 = 2 + p.row0;
    s += "\\node[anchor=south west,font=\\small\\bfseries] at (" + std::to_string(x0) + "," + std::to_string(y0 - 1) +
         ") {" + p.title + "};\n";
    for (i64 c = 0; c < p.cols; ++c)
      s += "\\node at (" + std::to_string(x0 + c) + ".5," + std::to_string(y0 - 1) + ".7) {" + std::to_string(c) + "};\n";
    for (i64 r = 0; r < p.rows; ++r)
      s += "\\node[anchor=east] at (" + std::to_string(x0) + "," + std::to_string(y0 + r) + ".5) {" + std::to_string(r) +
           "};\n";
    for (i64 r = 0; r < p.rows; ++r)
      for (i64 c = 0; c < p.cols; ++c) {
        Cell const& cell = p.at(r, c);
        std::string fill = cell.color >= 0 ? std::string("loom") + char('a' + cell.color) : "white";
        std::string xy = std::to_string(x0 + c) + "," + std::to_string(y0 + r);
        std::string label = cell.bottom.empty() ? cell.top : cell.top + "\\\\" + cell.bottom;
        s += "\\filldraw[fill=" + fill + ",draw=black] (" + xy + ") rectangle ++(1,1) node[midway] {" + label + "};\n";
      }
  }
  s += "\\end{tikzpicture}\n\\end{document}";
  return s;
}

}  // namespace loom_draw
