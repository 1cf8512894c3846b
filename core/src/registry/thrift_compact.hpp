// core/src/registry/thrift_compact.hpp: a write-only encoder for the Thrift compact protocol,
// just enough for Parquet's page headers and footer (parquet.cpp). Fields are written in the
// order the caller gives; ids are delta-encoded against the previous field of the same struct.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tether::registry::thrift {

// Compact-protocol type codes (the low nibble of a field header or list header).
enum class CType : std::uint8_t {
  BoolTrue = 1,
  BoolFalse = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Set = 10,
  Map = 11,
  Struct = 12,
};

// An unsigned LEB128 varint: the compact protocol's integers and lengths, and also the run
// headers of Parquet's RLE/bit-packed hybrid.
inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

class CompactWriter {
 public:
  explicit CompactWriter(std::string& out) : out_(out) {}

  // ---- fields of the current struct ----
  void field_i8(std::int16_t id, std::int8_t v) {
    header(id, CType::Byte);
    out_.push_back(static_cast<char>(v));
  }
  void field_i32(std::int16_t id, std::int32_t v) {
    header(id, CType::I32);
    varint(zigzag(v));
  }
  void field_i64(std::int16_t id, std::int64_t v) {
    header(id, CType::I64);
    varint(zigzag(v));
  }
  // A bool field carries its value in the header's type nibble.
  void field_bool(std::int16_t id, bool v) { header(id, v ? CType::BoolTrue : CType::BoolFalse); }
  void field_binary(std::int16_t id, std::string_view v) {
    header(id, CType::Binary);
    binary(v);
  }
  // Opens a nested struct field; close it with end_struct().
  void begin_struct_field(std::int16_t id) {
    header(id, CType::Struct);
    begin_struct();
  }
  // Opens a list field of `size` elements; the elements follow with the element writers below.
  void begin_list_field(std::int16_t id, CType elem, std::size_t size) {
    header(id, CType::List);
    list_header(elem, size);
  }

  // ---- list elements ----
  void elem_i32(std::int32_t v) { varint(zigzag(v)); }
  void elem_binary(std::string_view v) { binary(v); }
  void begin_struct() {
    stack_.push_back(last_id_);
    last_id_ = 0;
  }
  // Writes the stop byte of the current struct and returns to the enclosing one.
  void end_struct() {
    out_.push_back(0);
    last_id_ = stack_.empty() ? 0 : stack_.back();
    if (!stack_.empty()) stack_.pop_back();
  }

  // ---- primitives (public for tests) ----
  static std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
  }
  void varint(std::uint64_t v) { put_varint(out_, v); }

 private:
  void header(std::int16_t id, CType type) {
    const int delta = id - last_id_;
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
    } else {
      out_.push_back(static_cast<char>(type));
      varint(zigzag(id));
    }
    last_id_ = id;
  }
  void list_header(CType elem, std::size_t size) {
    if (size < 15) {
      out_.push_back(static_cast<char>((size << 4) | static_cast<std::size_t>(elem)));
    } else {
      out_.push_back(static_cast<char>(0xf0 | static_cast<int>(elem)));
      varint(size);
    }
  }
  void binary(std::string_view v) {
    varint(v.size());
    out_.append(v);
  }

  std::string& out_;
  std::int16_t last_id_ = 0;
  std::vector<std::int16_t> stack_;
};

}  // namespace tether::registry::thrift
