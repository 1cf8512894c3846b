// core/src/registry/text_formats.cpp: the directory formats (docs/registry.md#export):
// schema.json, CSV, JSONL, and the dispatch to the Parquet writer.
#include <algorithm>
#include <charconv>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/registry/registry.hpp"
#include "tether/support/json_escape.hpp"

namespace tether::registry {

namespace fs = std::filesystem;

namespace {

// Writes through a temporary file renamed into place, so readers never see half a table.
class AtomicOut {
 public:
  explicit AtomicOut(const fs::path& path) : path_(path), tmp_(model::temp_path_for(path)) {
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw TetherError("cannot write " + path.string() + ": cannot create " + tmp_.string());
  }
  ~AtomicOut() {
    if (!done_) {
      out_.close();
      std::error_code ec;
      fs::remove(tmp_, ec);
    }
  }
  std::ofstream& out() { return out_; }
  void commit() {
    out_.close();
    if (!out_) throw TetherError("cannot write " + path_.string());
    std::error_code ec;
    fs::rename(tmp_, path_, ec);
    if (ec) throw TetherError("cannot write " + path_.string() + ": " + ec.message());
    done_ = true;
  }

 private:
  fs::path path_, tmp_;
  std::ofstream out_;
  bool done_ = false;
};

void put_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

// CSV field, quoted only when it must be (RFC 4180; Python's csv QUOTE_MINIMAL).
void put_csv(std::string& out, std::string_view v) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += v;
    return;
  }
  out += '"';
  for (char ch : v) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

// A JSON string literal: UTF-8 kept as is, control characters escaped.
void put_json_string(std::string& out, std::string_view v) { support::append_json_string(out, v); }

}  // namespace

std::string schema_json() {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kSchemaVersion;
  nlohmann::ordered_json ts = nlohmann::ordered_json::object();
  for (const auto& t : tables()) {
    nlohmann::ordered_json cols = nlohmann::ordered_json::array();
    for (const auto& c : t.columns) cols.push_back({{"name", c.name}, {"type", type_name(c.type)}, {"doc", c.doc}});
    ts[t.name] = {{"doc", t.doc}, {"primary_key", t.primary_key}, {"columns", cols}};
  }
  doc["tables"] = ts;
  nlohmann::ordered_json vs = nlohmann::ordered_json::array();
  for (const auto& v : views()) vs.push_back(v.name);
  doc["views"] = vs;
  return doc.dump(2, ' ', false) + "\n";
}

void write_csv(const Table& table, const fs::path& path) {
  AtomicOut f(path);
  const auto& cols = table.def().columns;
  std::string buf;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (i) buf += ',';
    put_csv(buf, cols[i].name);
  }
  buf += "\r\n";
  for (std::size_t r = 0; r < table.rows(); ++r) {
    auto row = table.row(r);
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c) buf += ',';
      const Cell& cell = row[c];
      switch (cell.kind) {
        case Cell::Null: break;
        case Cell::Text: put_csv(buf, cell.s); break;
        case Cell::Int: put_int(buf, cell.i); break;
        case Cell::Bool: buf += cell.b ? "True" : "False"; break;
      }
    }
    buf += "\r\n";
    if (buf.size() > (1u << 20)) {
      f.out().write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  f.out().write(buf.data(), static_cast<std::streamsize>(buf.size()));
  f.commit();
}

void write_jsonl(const Table& table, const fs::path& path) {
  AtomicOut f(path);
  const auto& cols = table.def().columns;
  // Keys sorted: the column order of the sorted names.
  std::vector<std::size_t> order(cols.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cols[a].name < cols[b].name; });
  std::vector<std::string> names;
  for (std::size_t i : order) {
    std::string n;
    put_json_string(n, cols[i].name);
    names.push_back(n + ":");
  }
  std::string buf;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    auto row = table.row(r);
    buf += '{';
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k) buf += ',';
      buf += names[k];
      const Cell& cell = row[order[k]];
      switch (cell.kind) {
        case Cell::Null: buf += "null"; break;
        case Cell::Text:
          if (cols[order[k]].type == Type::Json)
            buf += cell.s;  // canonical JSON already: nested, not a string
          else
            put_json_string(buf, cell.s);
          break;
        case Cell::Int: put_int(buf, cell.i); break;
        case Cell::Bool: buf += cell.b ? "true" : "false"; break;
      }
    }
    buf += "}\n";
    if (buf.size() > (1u << 20)) {
      f.out().write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  f.out().write(buf.data(), static_cast<std::streamsize>(buf.size()));
  f.commit();
}

std::size_t write_dir(const Bundle& bundle, const fs::path& dir, const std::string& fmt) {
  if (fmt != "csv" && fmt != "jsonl" && fmt != "parquet") throw ConfigError("unknown export format '" + fmt + "'");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw ConfigError(dir.string() + " is a file; the " + fmt + " export writes a directory (one file per table)");
  fs::create_directories(dir, ec);
  if (ec) throw TetherError("cannot create " + dir.string() + ": " + ec.message());
  model::atomic_write_file(dir / "schema.json", schema_json());
  std::size_t files = 1;
  for (const auto& t : bundle.all()) {
    fs::path p = dir / (t.name() + "." + fmt);
    if (fmt == "csv")
      write_csv(t, p);
    else if (fmt == "jsonl")
      write_jsonl(t, p);
    else
      write_parquet(t, p);
    ++files;
  }
  return files;
}

}  // namespace tether::registry
