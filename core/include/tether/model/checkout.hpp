// tether/model/checkout.hpp: the one rule for a dataset checkout's own files. tether.toml,
// `.tether` and everything tether reads or writes under it (objects/, listings/, cache/,
// lock, secrets.toml, workspace.toml, ops.jsonl, .gitignore) are real files and directories
// inside the dataset root, never symlinks. A clone is written by someone else: a committed
// symlink there would redirect a read (`objects/a.toml -> /etc/shadow`) or a write (`lock ->
// any file`) outside the dataset, or route secrets.toml to a tracked file. Every access to
// those files goes through this module: paths are opened component by component from the
// root with openat(O_NOFOLLOW), so no symlink is followed and there is no window between a
// check and the use.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::model {

// A path inside a checkout. `root` is the dataset root, trusted as given (the user runs tether
// there; it may itself lie behind symlinks). `rel` is relative to it, without `..`, and every
// one of its components is opened without following a symlink.
struct CheckoutPath {
  std::filesystem::path root;
  std::filesystem::path rel;

  std::filesystem::path full() const { return root / rel; }
  CheckoutPath operator/(const std::filesystem::path& more) const { return {root, rel / more}; }
  CheckoutPath parent() const { return {root, rel.parent_path()}; }
  // `rel` in generic form: what messages name.
  std::string name() const { return rel.generic_string(); }
};

// `<root>/.tether/<rel>`.
CheckoutPath tether_path(const std::filesystem::path& root, const std::filesystem::path& rel = {});

// An owned file descriptor, closed on destruction. Empty (-1) means "absent".
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// The directory `p`. Missing components are created (0755) with `create`; without it an
// absent directory is an empty Fd. A component that is a symlink or not a directory throws
// ConfigError naming it and the way out.
Fd open_checkout_dir(const CheckoutPath& p, bool create);

// open(2) of the file `p` with O_NOFOLLOW | O_CLOEXEC added, relative to its directory opened
// as above (created when `flags` has O_CREAT). Absent (without O_CREAT) is an empty Fd; a
// symlink or anything but a regular file throws ConfigError.
Fd open_checkout_file(const CheckoutPath& p, int flags, unsigned mode = 0644);

// The whole file; nullopt when it (or its directory) does not exist. `mode`, when given,
// receives the permission bits of the file read.
std::optional<std::string> read_checkout_file(const CheckoutPath& p, unsigned* mode = nullptr);

// Atomic replace (temp file + fsync + rename in the same directory), creating the directory.
// A symlink at `p` is replaced, never written through.
void write_checkout_file(const CheckoutPath& p, std::string_view text, unsigned mode = 0644);

// Create-if-absent: writes a temp file and link()s it to `p`. False when `p` existed. The
// directory must exist (TetherError otherwise).
bool create_checkout_file(const CheckoutPath& p, std::string_view text, unsigned mode = 0644);

// Unlinks `p` (a symlink there is removed, not followed). False when it did not exist.
bool remove_checkout_file(const CheckoutPath& p);

// Removes the directory `p` and then each parent up to, not including, `stop` (a prefix of
// p.rel), stopping at the first that is not empty. Best effort: nothing throws.
void remove_empty_checkout_dirs(const CheckoutPath& p, const std::filesystem::path& stop);

// Whether anything (file, directory or symlink) is at `p`, without following it.
bool checkout_entry_exists(const CheckoutPath& p);

// The regular files under the directory `p` whose names end in `suffix`, as paths relative to
// `p`, sorted; recursive with `recursive`. A missing directory is empty. A symlink anywhere
// in the walked tree throws: a committed link there must not be read through.
std::vector<std::filesystem::path> list_checkout_files(const CheckoutPath& p, std::string_view suffix,
                                                       bool recursive);

// Refuses (ConfigError, one line) a checkout whose tether.toml (with `require_config`) is not
// a regular file, whose `.tether` is not a directory, or in which one of the names tether
// keeps in `.tether` is a symlink or of the wrong type. Run first, before anything is read.
void check_checkout(const std::filesystem::path& root, bool require_config = true);

}  // namespace tether::model
