// core/src/registry/parquet.cpp: our own small Parquet writer (Debian ships no Arrow) and the
// ISO-8601 parser its timestamp columns need. One row group, one column chunk per column, data
// pages (v1) of PLAIN values with RLE/bit-packed definition levels, each page zstd-compressed;
// the footer is FileMetaData in the Thrift compact protocol (thrift_compact.hpp).
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>

#include "registry/thrift_compact.hpp"
#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/registry/registry.hpp"

namespace tether::registry {

// ---- ISO-8601 ---------------------------------------------------------------------------------

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
// days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

unsigned days_in_month(int y, int m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// A cursor over the text with the few token readers the grammar needs.
struct Cursor {
  std::string_view s;
  std::size_t p = 0;
  bool at_end() const { return p == s.size(); }
  bool digit() const { return p < s.size() && s[p] >= '0' && s[p] <= '9'; }
  bool number(int width, int& out) {
    out = 0;
    for (int i = 0; i < width; ++i, ++p) {
      if (!digit()) return false;
      out = out * 10 + (s[p] - '0');
    }
    return true;
  }
  bool accept(char c) {
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
};

}  // namespace

// `YYYY-MM-DD(T| )HH:MM:SS[.f+](Z|±HH[:MM])`: the forms Python's isoformat() and git/jj emit.
// Digits beyond the microsecond are truncated. A timestamp without an offset does not parse:
// the column is TIMESTAMP WITH TIME ZONE and guessing a zone would shift it silently.
std::optional<std::int64_t> iso_to_micros(std::string_view iso) {
  Cursor c{iso};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!c.number(4, year) || !c.accept('-') || !c.number(2, month) || !c.accept('-') || !c.number(2, day))
    return std::nullopt;
  if (!c.accept('T') && !c.accept('t') && !c.accept(' ')) return std::nullopt;
  if (!c.number(2, hour) || !c.accept(':') || !c.number(2, minute) || !c.accept(':') || !c.number(2, second))
    return std::nullopt;
  std::int64_t fraction = 0;
  if (c.accept('.') || c.accept(',')) {
    if (!c.digit()) return std::nullopt;
    int used = 0;
    for (; c.digit(); ++c.p) {
      if (used < 6) {
        fraction = fraction * 10 + (c.s[c.p] - '0');
        ++used;
      }
    }
    for (; used < 6; ++used) fraction *= 10;
  }
  int offset_seconds = 0;
  if (!c.accept('Z') && !c.accept('z')) {
    int sign = 0;
    if (c.accept('+')) sign = 1;
    else if (c.accept('-')) sign = -1;
    else return std::nullopt;
    int oh = 0, om = 0;
    if (!c.number(2, oh)) return std::nullopt;
    if (!c.at_end()) {
      c.accept(':');
      if (!c.number(2, om)) return std::nullopt;
    }
    if (oh > 23 || om > 59) return std::nullopt;
    offset_seconds = sign * (oh * 3600 + om * 60);
  }
  if (!c.at_end()) return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || static_cast<unsigned>(day) > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59)
    return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  return seconds * 1'000'000 + fraction;
}

// ---- Parquet ----------------------------------------------------------------------------------

namespace {

using thrift::CompactWriter;
using thrift::CType;

// Enum values from parquet.thrift.
constexpr std::int32_t kBoolean = 0, kInt64 = 2, kByteArray = 6;          // Type
constexpr std::int32_t kUtf8 = 0, kTimestampMicros = 10, kInt64Conv = 18;  // ConvertedType
constexpr std::int32_t kPlain = 0, kRle = 3;                              // Encoding
constexpr std::int32_t kZstd = 6;                                         // CompressionCodec
constexpr std::int32_t kOptional = 1;                                     // FieldRepetitionType
constexpr std::int32_t kDataPage = 0;                                     // PageType

// A page ends at whichever comes first; 1 MiB is Arrow's default page size and keeps the
// scratch buffers small for tables of any length.
constexpr std::size_t kPageRows = 64 * 1024;
constexpr std::size_t kPageBytes = 1 << 20;
// pyarrow's default zstd level: fast, and the pages are small.
constexpr int kZstdLevel = 1;

std::int32_t physical_type(Type t) {
  switch (t) {
    case Type::Int:
    case Type::Timestamp: return kInt64;
    case Type::Bool: return kBoolean;
    case Type::Text:
    case Type::Json: break;
  }
  return kByteArray;
}

template <class T>
void put_le(std::string& out, T v) {
  if constexpr (std::endian::native == std::endian::little) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out.append(bytes, sizeof(T));
  } else {
    const auto u = static_cast<std::uint64_t>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>(u >> (8 * i)));
  }
}

// Definition levels (0 or 1) in the RLE/bit-packed hybrid at bit width 1: runs of eight or
// more equal levels become RLE runs, everything between them bit-packed groups of eight. A
// column without nulls is one RLE run of two or three bytes.
void encode_levels(const std::vector<std::uint8_t>& levels, std::string& out) {
  const std::size_t n = levels.size();
  const auto run_at = [&](std::size_t i, std::size_t cap) {
    std::size_t j = i;
    while (j < n && j - i < cap && levels[j] == levels[i]) ++j;
    return j - i;
  };
  std::size_t i = 0;
  while (i < n) {
    const std::size_t run = run_at(i, n);
    if (run >= 8) {
      thrift::put_varint(out, run << 1);
      out.push_back(static_cast<char>(levels[i]));
      i += run;
      continue;
    }
    // Literal groups until a run long enough to be worth an RLE run starts; only the last
    // group of the page may be padded.
    std::size_t j = i;
    do j += 8;
    while (j < n && run_at(j, 16) < 16);
    thrift::put_varint(out, ((j - i) / 8) << 1 | 1);
    for (std::size_t g = i; g < j; g += 8) {
      unsigned byte = 0;
      for (std::size_t k = 0; k < 8 && g + k < n; ++k) byte |= static_cast<unsigned>(levels[g + k]) << k;
      out.push_back(static_cast<char>(byte));
    }
    i = std::min(j, n);
  }
}

// One column chunk being built: the open page's levels and PLAIN values, and the finished
// pages (headers and compressed bodies) of the chunk so far.
struct ColumnState {
  std::vector<std::uint8_t> levels;
  std::string values;
  std::size_t bools = 0;  // booleans bit-packed into values
  std::string pages;
  std::int64_t data_page_offset = 0;
  std::int64_t uncompressed = 0;  // page headers + uncompressed page bodies
  std::int64_t compressed = 0;    // page headers + compressed page bodies
  std::int64_t null_count = 0;
};

struct ZstdFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// Builds the whole file in memory (pages are compressed, so it is small next to the Table it
// comes from), then hands it to atomic_write_file.
class ParquetBuilder {
 public:
  ParquetBuilder(const Table& table, const std::filesystem::path& path) : table_(table), path_(path) {
    zstd_.reset(ZSTD_createCCtx());
    if (!zstd_) fail("cannot allocate a zstd context");
  }

  std::string build() {
    const std::size_t ncols = table_.def().columns.size();
    const std::size_t rows = table_.rows();
    std::vector<ColumnState> chunks(rows > 0 ? ncols : 0);
    // Cells are stored row by row and their text in the bundle's arena in about row order, so
    // the table is walked in blocks of rows, each block column by column: the block's cells and
    // text stay in cache while every column gets its share.
    for (std::size_t first = 0; first < rows; first += kBlockRows) {
      const std::size_t last = std::min(rows, first + kBlockRows);
      for (std::size_t c = 0; c < chunks.size(); ++c) append_rows(c, chunks[c], first, last);
    }
    std::size_t total = 4;
    for (ColumnState& chunk : chunks) {
      if (!chunk.levels.empty()) flush_page(chunk);
      total += chunk.pages.size();
    }
    out_.reserve(total + 1024);
    out_ = "PAR1";
    for (ColumnState& chunk : chunks) {
      chunk.data_page_offset = static_cast<std::int64_t>(out_.size());
      out_ += chunk.pages;
      std::string().swap(chunk.pages);
    }
    write_footer(chunks);
    return std::move(out_);
  }

 private:
  static constexpr std::size_t kBlockRows = 1024;

  [[noreturn]] void fail(const std::string& why) const {
    throw TetherError("cannot write " + path_.string() + ": " + why);
  }
  [[noreturn]] void bad_cell(std::size_t col, std::size_t row, const std::string& why) const {
    const Column& column = table_.def().columns[col];
    fail("table " + table_.name() + ", column " + column.name + " (" + type_name(column.type) + "), row " +
         std::to_string(row) + ": " + why);
  }

  // Appends one non-null cell's PLAIN encoding to the open page.
  void append_value(ColumnState& s, Type type, const Cell& cell, std::size_t col, std::size_t row) {
    switch (type) {
      case Type::Text:
      case Type::Json: {
        if (cell.kind != Cell::Text) bad_cell(col, row, "not a text cell");
        if (cell.s.size() > std::numeric_limits<std::int32_t>::max()) bad_cell(col, row, "text longer than 2 GiB");
        put_le(s.values, static_cast<std::uint32_t>(cell.s.size()));
        s.values.append(cell.s);
        return;
      }
      case Type::Int:
        if (cell.kind != Cell::Int) bad_cell(col, row, "not an integer cell");
        put_le(s.values, cell.i);
        return;
      case Type::Timestamp: {
        if (cell.kind != Cell::Text) bad_cell(col, row, "not a text cell");
        const auto micros = iso_to_micros(cell.s);
        if (!micros)
          bad_cell(col, row, "'" + std::string(cell.s) + "' is not an ISO-8601 timestamp with an offset");
        put_le(s.values, *micros);
        return;
      }
      case Type::Bool:
        if (cell.kind != Cell::Bool) bad_cell(col, row, "not a boolean cell");
        // PLAIN booleans are bit-packed, least significant bit first.
        if (s.bools % 8 == 0) s.values.push_back(0);
        if (cell.b) s.values.back() = static_cast<char>(s.values.back() | (1 << (s.bools % 8)));
        ++s.bools;
        return;
    }
  }

  // Rows [first, last) of column `col`; a page is closed at kPageRows rows or kPageBytes.
  void append_rows(std::size_t col, ColumnState& s, std::size_t first, std::size_t last) {
    const Type type = table_.def().columns[col].type;
    for (std::size_t row = first; row < last; ++row) {
      const Cell& cell = table_.at(row, col);
      if (cell.is_null()) {
        s.levels.push_back(0);
        ++s.null_count;
      } else {
        s.levels.push_back(1);
        append_value(s, type, cell, col, row);
      }
      if (s.levels.size() == kPageRows || s.values.size() >= kPageBytes) flush_page(s);
    }
  }

  // Closes the open page as one DataPage v1: [u32 length][definition levels][values],
  // zstd-compressed after its header.
  void flush_page(ColumnState& s) {
    encoded_levels_.clear();
    encode_levels(s.levels, encoded_levels_);
    body_.clear();
    put_le(body_, static_cast<std::uint32_t>(encoded_levels_.size()));
    body_ += encoded_levels_;
    body_ += s.values;
    if (body_.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      fail("a page of table " + table_.name() + " is larger than 2 GiB");

    const std::size_t bound = ZSTD_compressBound(body_.size());
    if (packed_.size() < bound) packed_.resize(bound);
    const std::size_t packed = ZSTD_compressCCtx(zstd_.get(), packed_.data(), bound, body_.data(), body_.size(), kZstdLevel);
    if (ZSTD_isError(packed)) fail(std::string("zstd: ") + ZSTD_getErrorName(packed));

    const std::size_t header_start = s.pages.size();
    CompactWriter w(s.pages);  // PageHeader
    w.field_i32(1, kDataPage);
    w.field_i32(2, static_cast<std::int32_t>(body_.size()));
    w.field_i32(3, static_cast<std::int32_t>(packed));
    w.begin_struct_field(5);  // DataPageHeader
    w.field_i32(1, static_cast<std::int32_t>(s.levels.size()));
    w.field_i32(2, kPlain);
    w.field_i32(3, kRle);
    w.field_i32(4, kRle);
    w.end_struct();
    w.end_struct();
    const auto header = static_cast<std::int64_t>(s.pages.size() - header_start);
    s.pages.append(packed_.data(), packed);
    s.uncompressed += header + static_cast<std::int64_t>(body_.size());
    s.compressed += header + static_cast<std::int64_t>(packed);
    s.levels.clear();
    s.values.clear();
    s.bools = 0;
  }

  void write_schema_element(CompactWriter& w, const Column& column) {
    w.begin_struct();
    w.field_i32(1, physical_type(column.type));
    w.field_i32(3, kOptional);
    w.field_binary(4, column.name);
    switch (column.type) {
      case Type::Text:
      case Type::Json:
        w.field_i32(6, kUtf8);
        w.begin_struct_field(10);  // LogicalType
        w.begin_struct_field(1);   // STRING
        w.end_struct();
        w.end_struct();
        break;
      case Type::Int:
        w.field_i32(6, kInt64Conv);
        w.begin_struct_field(10);  // LogicalType
        w.begin_struct_field(10);  // INTEGER
        w.field_i8(1, 64);         // bitWidth
        w.field_bool(2, true);     // isSigned
        w.end_struct();
        w.end_struct();
        break;
      case Type::Timestamp:
        w.field_i32(6, kTimestampMicros);
        w.begin_struct_field(10);  // LogicalType
        w.begin_struct_field(8);   // TIMESTAMP
        w.field_bool(1, true);     // isAdjustedToUTC
        w.begin_struct_field(2);   // unit: TimeUnit
        w.begin_struct_field(2);   // MICROS
        w.end_struct();
        w.end_struct();
        w.end_struct();
        w.end_struct();
        break;
      case Type::Bool: break;
    }
    w.end_struct();
  }

  void write_footer(const std::vector<ColumnState>& chunks) {
    const auto& columns = table_.def().columns;
    const auto rows = static_cast<std::int64_t>(table_.rows());
    const std::size_t footer_start = out_.size();
    CompactWriter w(out_);  // FileMetaData
    w.field_i32(1, 1);      // version
    w.begin_list_field(2, CType::Struct, columns.size() + 1);
    w.begin_struct();  // the root group
    w.field_binary(4, "schema");
    w.field_i32(5, static_cast<std::int32_t>(columns.size()));
    w.end_struct();
    for (const Column& column : columns) write_schema_element(w, column);
    w.field_i64(3, rows);
    // An empty table has no row group at all: DuckDB and pyarrow read that as zero rows.
    w.begin_list_field(4, CType::Struct, chunks.empty() ? 0 : 1);
    if (!chunks.empty()) {
      std::int64_t uncompressed = 0, compressed = 0;
      w.begin_struct();  // RowGroup
      w.begin_list_field(1, CType::Struct, chunks.size());
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        const ColumnState& chunk = chunks[c];
        uncompressed += chunk.uncompressed;
        compressed += chunk.compressed;
        w.begin_struct();  // ColumnChunk
        w.field_i64(2, chunk.data_page_offset);
        w.begin_struct_field(3);  // ColumnMetaData
        w.field_i32(1, physical_type(columns[c].type));
        w.begin_list_field(2, CType::I32, 2);
        w.elem_i32(kPlain);
        w.elem_i32(kRle);
        w.begin_list_field(3, CType::Binary, 1);
        w.elem_binary(columns[c].name);
        w.field_i32(4, kZstd);
        w.field_i64(5, rows);
        w.field_i64(6, chunk.uncompressed);
        w.field_i64(7, chunk.compressed);
        w.field_i64(9, chunk.data_page_offset);
        w.begin_struct_field(12);  // Statistics
        w.field_i64(3, chunk.null_count);
        w.end_struct();
        w.end_struct();
        w.end_struct();
      }
      w.field_i64(2, uncompressed);  // total_byte_size
      w.field_i64(3, rows);
      w.field_i64(5, chunks.front().data_page_offset);  // file_offset
      w.field_i64(6, compressed);
      w.end_struct();
    }
    w.field_binary(6, "tether " TETHER_VERSION);  // created_by
    w.end_struct();
    put_le(out_, static_cast<std::uint32_t>(out_.size() - footer_start));
    out_ += "PAR1";
  }

  const Table& table_;
  const std::filesystem::path& path_;
  std::unique_ptr<ZSTD_CCtx, ZstdFree> zstd_;
  std::string out_;             // the file
  std::string encoded_levels_;  // scratch: a page's levels in the RLE/bit-packed hybrid
  std::string body_;            // scratch: a page, uncompressed
  std::string packed_;          // scratch: a page, compressed
};

}  // namespace

void write_parquet(const Table& table, const std::filesystem::path& path) {
  model::atomic_write_file(path, ParquetBuilder(table, path).build());
}

}  // namespace tether::registry
