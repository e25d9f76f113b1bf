// Native reader for whitespace-separated edge lists (contract in edge_list.h).
//
// One pass over the bytes with a raw pointer: no per-line allocation, no
// locale, no strtol. The output vectors are sized once from the newline count
// (a memchr-speed scan) so they never reallocate.
#include "kcjax/core/edge_list.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace kcjax {
namespace {

constexpr int64_t kMaxId = std::numeric_limits<int64_t>::max();

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
// Characters that may end a field: separators, end of line.
inline bool EndsField(char c) { return IsBlank(c) || c == '\n'; }

// The token starting at `p` (up to a separator, at most 32 bytes), with
// non-printable bytes escaped, for error messages.
std::string Token(const char* p, const char* end) {
  std::string out;
  for (int i = 0; i < 32 && p < end && !EndsField(*p); ++i, ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (p < end && !EndsField(*p)) out += "...";
  return out;
}

// Parses one vertex id at `*pp`, advancing past it. Returns false and fills
// `error` when the field is not a non-negative decimal int64.
bool ParseId(const char** pp, const char* end, int64_t line, const char* which, int64_t* out,
             std::string* error) {
  const char* p = *pp;
  const char* start = p;
  auto fail = [&](const std::string& what) {
    *error = "line " + std::to_string(line) + ": " + what;
    return false;
  };
  if (p == end || !IsDigit(*p)) {
    if (p < end && *p == '-' && p + 1 < end && IsDigit(p[1])) {
      return fail(std::string("negative ") + which + " vertex id '" + Token(start, end) + "'");
    }
    return fail(std::string("non-numeric ") + which + " vertex id '" + Token(start, end) + "'");
  }
  int64_t v = 0;
  for (; p < end && IsDigit(*p); ++p) {
    const int64_t d = *p - '0';
    if (v > (kMaxId - d) / 10) {
      return fail(std::string(which) + " vertex id '" + Token(start, end) +
                  "' overflows int64");
    }
    v = v * 10 + d;
  }
  if (p < end && !EndsField(*p)) {
    return fail(std::string("non-numeric ") + which + " vertex id '" + Token(start, end) + "'");
  }
  *out = v;
  *pp = p;
  return true;
}

inline const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && IsBlank(*p)) ++p;
  return p;
}

inline const char* NextLine(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
  return nl == nullptr ? end : static_cast<const char*>(nl) + 1;
}

}  // namespace

EdgeList ParseEdgeList(std::string_view text) {
  EdgeList el;
  const char* p = text.data();
  const char* const end = p + text.size();
  const auto lines = static_cast<size_t>(std::count(p, end, '\n')) + 1;
  el.src.reserve(lines);
  el.dst.reserve(lines);
  int64_t line = 0;
  while (p < end) {
    ++line;
    p = SkipBlanks(p, end);
    if (p == end) break;
    if (*p == '\n' || *p == '#' || *p == '%') {
      p = NextLine(p, end);
      continue;
    }
    int64_t u = 0;
    int64_t v = 0;
    if (!ParseId(&p, end, line, "source", &u, &el.error)) break;
    p = SkipBlanks(p, end);
    if (p == end || *p == '\n') {
      el.error = "line " + std::to_string(line) + ": expected 2 fields (u v), found 1";
      break;
    }
    if (!ParseId(&p, end, line, "target", &v, &el.error)) break;
    el.src.push_back(u);
    el.dst.push_back(v);
    p = NextLine(p, end);  // further columns (weights, timestamps) are ignored
  }
  el.num_lines = line;
  if (!el.error.empty()) {
    el.src.clear();
    el.dst.clear();
  }
  return el;
}

}  // namespace kcjax
