// Native reader for whitespace-separated edge lists (SNAP / KONECT text).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kcjax {

struct EdgeList {
  std::vector<int64_t> src;
  std::vector<int64_t> dst;
  int64_t num_lines = 0;  // lines read, comments and blank lines included
  std::string error;      // empty on success, else "line N: what is wrong"
};

// Parses `text`: one edge "u v" per line (further columns are ignored), ids
// non-negative decimal integers, fields separated by spaces or tabs, lines
// starting with '#' or '%' are comments, blank lines are skipped. Stops at the
// first malformed line and reports it in `error`.
EdgeList ParseEdgeList(std::string_view text);

}  // namespace kcjax
