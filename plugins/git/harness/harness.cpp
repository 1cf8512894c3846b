// tether-harness-git.so: the conformance harness of the git backend (conformance/include/
// tether/harness.h). Each object is a fresh repository under the runner's workdir with `main`
// checked out; every mutate commits one new file, so writes on two branches never conflict.
// Writes on the checked-out branch go through the working tree and index (as a user's
// commit would); writes on any other branch are made from its tree alone, leaving HEAD on
// `main`.
#include <git2.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "tether/harness.h"
#include "tether/harness_support.hpp"
#include "tether/support/git2.hpp"

namespace {

namespace fs = std::filesystem;
namespace git2 = tether::support::git2;
using git2::check;
using tether::harness::fail;
using tether::harness::unused;

int put(const nlohmann::json& value, char* out, std::size_t cap, char* err, std::size_t errcap) {
  return tether::harness::put(value.dump(), out, cap, err, errcap);
}

void ensure_init() { static git2::Library once; }

std::atomic<unsigned> counter{0};

// Commits `file` (with `text`) on `branch`: through the index and working tree when it is
// the checked-out branch, else on top of the branch's tree alone.
void commit_file(const fs::path& path, const std::string& branch, const std::string& file, const std::string& text) {
  git_repository* rraw = nullptr;
  check(git_repository_open_ext(&rraw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr), "open " + path.string());
  git2::Repository repo(rraw);
  git_signature* sraw = nullptr;
  check(git_signature_now(&sraw, "tether conformance", "conformance@example.invalid"), "signature");
  git2::Signature sig(sraw);

  std::string ref = "refs/heads/" + branch;
  git_oid parent{};
  bool has_parent = git_reference_name_to_id(&parent, repo.get(), ref.c_str()) == 0;
  git_reference* hraw = nullptr;
  bool checked_out = false;
  if (git_reference_lookup(&hraw, repo.get(), "HEAD") == 0) {
    git2::Reference head(hraw);
    checked_out = git_reference_type(head.get()) == GIT_REFERENCE_SYMBOLIC &&
                  ref == git_reference_symbolic_target(head.get()) && !git_repository_is_bare(repo.get());
  }

  git_oid tree_id;
  if (checked_out) {
    std::ofstream(path / file, std::ios::binary) << text;
    git_index* iraw = nullptr;
    check(git_repository_index(&iraw, repo.get()), "index");
    git2::Index index(iraw);
    check(git_index_add_bypath(index.get(), file.c_str()), "add " + file);
    check(git_index_write(index.get()), "write index");
    check(git_index_write_tree(&tree_id, index.get()), "write tree");
  } else {
    git_tree* base = nullptr;
    if (has_parent) {
      git_commit* craw = nullptr;
      check(git_commit_lookup(&craw, repo.get(), &parent), "parent");
      git2::Commit c(craw);
      check(git_commit_tree(&base, c.get()), "parent tree");
    }
    git2::Tree base_tree(base);
    git_treebuilder* braw = nullptr;
    check(git_treebuilder_new(&braw, repo.get(), base_tree.get()), "treebuilder");
    git2::TreeBuilder builder(braw);
    git_oid blob;
    check(git_blob_create_from_buffer(&blob, repo.get(), text.data(), text.size()), "blob");
    check(git_treebuilder_insert(nullptr, builder.get(), file.c_str(), &blob, GIT_FILEMODE_BLOB), "insert");
    check(git_treebuilder_write(&tree_id, builder.get()), "write tree");
  }
  git_tree* traw = nullptr;
  check(git_tree_lookup(&traw, repo.get(), &tree_id), "tree");
  git2::Tree tree(traw);
  git_commit* praw = nullptr;
  if (has_parent) check(git_commit_lookup(&praw, repo.get(), &parent), "parent");
  git2::Commit parent_commit(praw);
  const git_commit* parents[] = {parent_commit.get()};
  git_oid id;
  check(git_commit_create(&id, repo.get(), ref.c_str(), sig.get(), sig.get(), nullptr, ("write " + file + "\n").c_str(),
                          tree.get(), has_parent ? 1 : 0, parents),
        "commit on " + branch);
}

int new_object(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    ensure_init();
    fs::path dir = unused(workdir, "repo-");
    auto opts = git2::init_options(git_repository_init_options_init, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
    opts.flags = GIT_REPOSITORY_INIT_MKPATH;
    opts.initial_head = "main";
    git_repository* raw = nullptr;
    check(git_repository_init_ext(&raw, dir.c_str(), &opts), "init " + dir.string());
    git_repository_free(raw);
    commit_file(dir, "main", "README", "a repository for the conformance suite\n");
    return put({{"path", dir.string()}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int mutate(const char*, const char* locator_json, const char* working_ref, char* err, std::size_t errcap) noexcept {
  try {
    ensure_init();
    auto locator = nlohmann::json::parse(locator_json);
    fs::path path = locator.value("path", std::string());
    std::string branch = working_ref ? working_ref : locator.value("ref", std::string("main"));
    unsigned n = ++counter;
    commit_file(path, branch, "write-" + std::to_string(n) + ".txt", "write " + std::to_string(n) + "\n");
    return 0;
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int fresh_locator(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    return put({{"path", unused(workdir, "fresh-").string()}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC, sizeof(tether_harness_entry), "git", nullptr, 0, new_object, mutate, fresh_locator, nullptr,
};
