// git2_lazy.cpp: libgit2 is loaded when a command first reads the repository through it, not
// at start-up.
//
// Linked directly, libgit2.so.1.5 brings 14 more shared objects into every tether process
// (mbedTLS, libssh2 and with it libcrypto, Kerberos, PCRE2, http-parser): their loading,
// relocation and constructors cost 0.8 ms of CPU, a quarter of a small `tether status`, in
// commands that never open a repository through libgit2 (`--version`, `backends`, and those
// that answer from git's files directly). So the vcs layer defines every libgit2 function core
// calls (its own code and support's git2.cpp linked into tether), each forwarding to the real
// one in libgit2.so.1.5, opened on the first call (tether/support/lazy_library.hpp). The
// signatures are git2.h's (a definition that differs from its declaration does not compile);
// a function called but not defined here fails to link tether, which no longer links libgit2.
//
// The git plugin links libgit2 itself. These definitions are not exported from the executable
// (nothing it links refers to them, and tether is not linked with --export-dynamic), so the
// plugin's calls, and libgit2's own, bind to libgit2, never here. When the plugin loaded
// libgit2 first, dlopen of the same soname returns that copy: one library, one init count,
// which support's git2::Library and the plugin's each keep balanced. The handle is never
// closed, so git_libgit2_shutdown from a static's destructor at exit still reaches libgit2.
//
// A failure to load libgit2 (or a function missing from it) is a VcsError.
#include <git2.h>

#include <cstdarg>
#include <string>

#include "tether/errors.hpp"
#include "tether/support/lazy_library.hpp"

namespace {

// RTLD_LAZY, as when it was linked: RTLD_NOW would bind every function of libgit2 and its 14
// dependencies at the open (1,200 more symbol lookups). libcrypto (libssh2's) is opened first:
// its references to its own functions would otherwise walk all 23 objects before it (2 M
// instructions, lazy_library.hpp). With both, a small `status` that opens libgit2 runs 13.6 M
// instructions (12.2 M when linked: the rest is lookups that walk the executable's scope first).
constinit tether::support::LazyLibrary libgit2("libgit2.so." LIBGIT2_SOVERSION, "the git library",
                                               "install libgit2 " LIBGIT2_SOVERSION
                                               " (Debian: libgit2-" LIBGIT2_SOVERSION ") to read git repositories",
                                               nullptr, RTLD_LAZY, "libcrypto.so.3");

[[noreturn]] void fail(const std::string& message) { throw tether::VcsError(message); }

}  // namespace

#define TETHER_GIT2(ret, name, params, args) TETHER_LAZY_FORWARD(libgit2, fail, ret, name, params, args)

TETHER_GIT2(void, git_blob_free, (git_blob * blob), (blob))
TETHER_GIT2(int, git_blob_lookup, (git_blob** blob, git_repository* repo, const git_oid* id), (blob, repo, id))
TETHER_GIT2(const void*, git_blob_rawcontent, (const git_blob* blob), (blob))
TETHER_GIT2(git_object_size_t, git_blob_rawsize, (const git_blob* blob), (blob))
TETHER_GIT2(int, git_blob_create_from_buffer, (git_oid * id, git_repository* repo, const void* buffer, size_t len),
            (id, repo, buffer, len))
TETHER_GIT2(void, git_branch_iterator_free, (git_branch_iterator * iter), (iter))
TETHER_GIT2(int, git_branch_iterator_new, (git_branch_iterator** out, git_repository* repo, git_branch_t list_flags),
            (out, repo, list_flags))
TETHER_GIT2(int, git_branch_next, (git_reference** out, git_branch_t* out_type, git_branch_iterator* iter),
            (out, out_type, iter))
TETHER_GIT2(void, git_buf_dispose, (git_buf * buffer), (buffer))
TETHER_GIT2(const git_signature*, git_commit_author, (const git_commit* commit), (commit))
TETHER_GIT2(const git_signature*, git_commit_committer, (const git_commit* commit), (commit))
TETHER_GIT2(int, git_commit_create,
            (git_oid * id, git_repository* repo, const char* update_ref, const git_signature* author,
             const git_signature* committer, const char* message_encoding, const char* message, const git_tree* tree,
             size_t parent_count, const git_commit* parents[]),
            (id, repo, update_ref, author, committer, message_encoding, message, tree, parent_count, parents))
TETHER_GIT2(void, git_commit_free, (git_commit * commit), (commit))
TETHER_GIT2(const git_oid*, git_commit_id, (const git_commit* commit), (commit))
TETHER_GIT2(int, git_commit_lookup, (git_commit** commit, git_repository* repo, const git_oid* id), (commit, repo, id))
TETHER_GIT2(const char*, git_commit_message, (const git_commit* commit), (commit))
TETHER_GIT2(const char*, git_commit_message_encoding, (const git_commit* commit), (commit))
TETHER_GIT2(const char*, git_commit_message_raw, (const git_commit* commit), (commit))
TETHER_GIT2(int, git_commit_parent, (git_commit** out, const git_commit* commit, unsigned int n), (out, commit, n))
TETHER_GIT2(const git_oid*, git_commit_parent_id, (const git_commit* commit, unsigned int n), (commit, n))
TETHER_GIT2(unsigned int, git_commit_parentcount, (const git_commit* commit), (commit))
TETHER_GIT2(const char*, git_commit_summary, (git_commit * commit), (commit))
TETHER_GIT2(git_time_t, git_commit_time, (const git_commit* commit), (commit))
TETHER_GIT2(int, git_commit_tree, (git_tree** tree_out, const git_commit* commit), (tree_out, commit))
TETHER_GIT2(const git_oid*, git_commit_tree_id, (const git_commit* commit), (commit))
TETHER_GIT2(const git_error*, git_error_last, (void), ())
TETHER_GIT2(int, git_graph_descendant_of, (git_repository * repo, const git_oid* commit, const git_oid* ancestor),
            (repo, commit, ancestor))
TETHER_GIT2(int, git_index_add, (git_index * index, const git_index_entry* source_entry), (index, source_entry))
TETHER_GIT2(void, git_index_conflict_iterator_free, (git_index_conflict_iterator * iterator), (iterator))
TETHER_GIT2(int, git_index_conflict_iterator_new, (git_index_conflict_iterator** iterator_out, git_index* index),
            (iterator_out, index))
TETHER_GIT2(int, git_index_conflict_next,
            (const git_index_entry** ancestor_out, const git_index_entry** our_out, const git_index_entry** their_out,
             git_index_conflict_iterator* iterator),
            (ancestor_out, our_out, their_out, iterator))
TETHER_GIT2(int, git_index_conflict_remove, (git_index * index, const char* path), (index, path))
TETHER_GIT2(size_t, git_index_entrycount, (const git_index* index), (index))
TETHER_GIT2(int, git_index_find_prefix, (size_t * at_pos, git_index* index, const char* prefix),
            (at_pos, index, prefix))
TETHER_GIT2(void, git_index_free, (git_index * index), (index))
TETHER_GIT2(const git_index_entry*, git_index_get_bypath, (git_index * index, const char* path, int stage),
            (index, path, stage))
TETHER_GIT2(int, git_index_has_conflicts, (const git_index* index), (index))
TETHER_GIT2(int, git_index_read, (git_index * index, int force), (index, force))
TETHER_GIT2(int, git_index_remove, (git_index * index, const char* path, int stage), (index, path, stage))
TETHER_GIT2(int, git_index_remove_directory, (git_index * index, const char* dir, int stage), (index, dir, stage))
TETHER_GIT2(int, git_index_write_tree_to, (git_oid * out, git_index* index, git_repository* repo), (out, index, repo))
TETHER_GIT2(int, git_libgit2_init, (void), ())
TETHER_GIT2(int, git_libgit2_shutdown, (void), ())
TETHER_GIT2(int, git_merge_options_init, (git_merge_options * opts, unsigned int version), (opts, version))
TETHER_GIT2(int, git_merge_trees,
            (git_index** out, git_repository* repo, const git_tree* ancestor_tree, const git_tree* our_tree,
             const git_tree* their_tree, const git_merge_options* opts),
            (out, repo, ancestor_tree, our_tree, their_tree, opts))
TETHER_GIT2(void, git_object_free, (git_object * object), (object))
TETHER_GIT2(const git_oid*, git_object_id, (const git_object* obj), (obj))
TETHER_GIT2(int, git_object_peel, (git_object** peeled, const git_object* object, git_object_t target_type),
            (peeled, object, target_type))
TETHER_GIT2(int, git_oid_equal, (const git_oid* a, const git_oid* b), (a, b))
TETHER_GIT2(int, git_oid_fromstr, (git_oid * out, const char* str), (out, str))
TETHER_GIT2(char*, git_oid_tostr, (char* out, size_t n, const git_oid* id), (out, n, id))
TETHER_GIT2(void, git_reference_free, (git_reference * ref), (ref))
TETHER_GIT2(void, git_reference_iterator_free, (git_reference_iterator * iter), (iter))
TETHER_GIT2(int, git_reference_iterator_glob_new,
            (git_reference_iterator** out, git_repository* repo, const char* glob), (out, repo, glob))
TETHER_GIT2(int, git_reference_iterator_new, (git_reference_iterator** out, git_repository* repo), (out, repo))
TETHER_GIT2(int, git_reference_lookup, (git_reference** out, git_repository* repo, const char* name),
            (out, repo, name))
TETHER_GIT2(const char*, git_reference_name, (const git_reference* ref), (ref))
TETHER_GIT2(int, git_reference_name_to_id, (git_oid * out, git_repository* repo, const char* name), (out, repo, name))
TETHER_GIT2(int, git_reference_next, (git_reference** out, git_reference_iterator* iter), (out, iter))
TETHER_GIT2(int, git_reference_peel, (git_object** out, const git_reference* ref, git_object_t type), (out, ref, type))
TETHER_GIT2(const char*, git_reference_symbolic_target, (const git_reference* ref), (ref))
TETHER_GIT2(const git_oid*, git_reference_target, (const git_reference* ref), (ref))
TETHER_GIT2(git_reference_t, git_reference_type, (const git_reference* ref), (ref))
TETHER_GIT2(const char*, git_repository_commondir, (const git_repository* repo), (repo))
TETHER_GIT2(void, git_repository_free, (git_repository * repo), (repo))
TETHER_GIT2(int, git_repository_head, (git_reference** out, git_repository* repo), (out, repo))
TETHER_GIT2(int, git_repository_head_for_worktree, (git_reference** out, git_repository* repo, const char* name),
            (out, repo, name))
TETHER_GIT2(int, git_repository_index, (git_index** out, git_repository* repo), (out, repo))
TETHER_GIT2(int, git_repository_is_bare, (const git_repository* repo), (repo))
TETHER_GIT2(int, git_repository_is_worktree, (const git_repository* repo), (repo))
TETHER_GIT2(int, git_repository_item_path, (git_buf * out, const git_repository* repo, git_repository_item_t item),
            (out, repo, item))
TETHER_GIT2(int, git_repository_open, (git_repository** out, const char* path), (out, path))
TETHER_GIT2(int, git_repository_open_ext,
            (git_repository** out, const char* path, unsigned int flags, const char* ceiling_dirs),
            (out, path, flags, ceiling_dirs))
TETHER_GIT2(const char*, git_repository_path, (const git_repository* repo), (repo))
TETHER_GIT2(const char*, git_repository_workdir, (const git_repository* repo), (repo))
TETHER_GIT2(int, git_revparse_single, (git_object** out, git_repository* repo, const char* spec), (out, repo, spec))
TETHER_GIT2(void, git_revwalk_free, (git_revwalk * walk), (walk))
TETHER_GIT2(int, git_revwalk_hide, (git_revwalk * walk, const git_oid* commit_id), (walk, commit_id))
TETHER_GIT2(int, git_revwalk_new, (git_revwalk** out, git_repository* repo), (out, repo))
TETHER_GIT2(int, git_revwalk_next, (git_oid * out, git_revwalk* walk), (out, walk))
TETHER_GIT2(int, git_revwalk_push, (git_revwalk * walk, const git_oid* id), (walk, id))
TETHER_GIT2(int, git_revwalk_sorting, (git_revwalk * walk, unsigned int sort_mode), (walk, sort_mode))
TETHER_GIT2(size_t, git_status_list_entrycount, (git_status_list * statuslist), (statuslist))
TETHER_GIT2(void, git_status_list_free, (git_status_list * statuslist), (statuslist))
TETHER_GIT2(int, git_status_list_new, (git_status_list** out, git_repository* repo, const git_status_options* opts),
            (out, repo, opts))
TETHER_GIT2(int, git_status_options_init, (git_status_options * opts, unsigned int version), (opts, version))
TETHER_GIT2(void, git_strarray_dispose, (git_strarray * array), (array))
TETHER_GIT2(const git_tree_entry*, git_tree_entry_byindex, (const git_tree* tree, size_t idx), (tree, idx))
TETHER_GIT2(int, git_tree_entry_bypath, (git_tree_entry** out, const git_tree* root, const char* path),
            (out, root, path))
TETHER_GIT2(git_filemode_t, git_tree_entry_filemode, (const git_tree_entry* entry), (entry))
TETHER_GIT2(void, git_tree_entry_free, (git_tree_entry * entry), (entry))
TETHER_GIT2(const git_oid*, git_tree_entry_id, (const git_tree_entry* entry), (entry))
TETHER_GIT2(const char*, git_tree_entry_name, (const git_tree_entry* entry), (entry))
TETHER_GIT2(git_object_t, git_tree_entry_type, (const git_tree_entry* entry), (entry))
TETHER_GIT2(size_t, git_tree_entrycount, (const git_tree* tree), (tree))
TETHER_GIT2(int, git_tree_create_updated,
            (git_oid * out, git_repository* repo, git_tree* baseline, size_t nupdates, const git_tree_update* updates),
            (out, repo, baseline, nupdates, updates))
TETHER_GIT2(void, git_tree_free, (git_tree * tree), (tree))
TETHER_GIT2(const git_oid*, git_tree_id, (const git_tree* tree), (tree))
TETHER_GIT2(int, git_tree_lookup, (git_tree** out, git_repository* repo, const git_oid* id), (out, repo, id))
TETHER_GIT2(int, git_tree_walk, (const git_tree* tree, git_treewalk_mode mode, git_treewalk_cb callback, void* payload),
            (tree, mode, callback, payload))
TETHER_GIT2(void, git_worktree_free, (git_worktree * wt), (wt))
TETHER_GIT2(int, git_worktree_list, (git_strarray * out, git_repository* repo), (out, repo))
TETHER_GIT2(int, git_worktree_lookup, (git_worktree** out, git_repository* repo, const char* name), (out, repo, name))
TETHER_GIT2(const char*, git_worktree_path, (const git_worktree* wt), (wt))

// The one variadic function: tether sets only options that take one int (support's
// git2::Library: GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION), and those are what it forwards. Any
// other option would need its own arguments read here: it throws a VcsError naming it.
extern "C" int git_libgit2_opts(int option, ...) {
  static const auto fn = libgit2.get<decltype(&::git_libgit2_opts)>("git_libgit2_opts", fail);
  switch (option) {
    case GIT_OPT_ENABLE_CACHING:
    case GIT_OPT_ENABLE_STRICT_OBJECT_CREATION:
    case GIT_OPT_ENABLE_STRICT_SYMBOLIC_REF_CREATION:
    case GIT_OPT_ENABLE_OFS_DELTA:
    case GIT_OPT_ENABLE_FSYNC_GITDIR:
    case GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION:
    case GIT_OPT_ENABLE_UNSAVED_INDEX_SAFETY:
    case GIT_OPT_DISABLE_PACK_KEEP_FILE_CHECKS:
    case GIT_OPT_ENABLE_HTTP_EXPECT_CONTINUE:
    case GIT_OPT_SET_OWNER_VALIDATION: {
      va_list ap;
      va_start(ap, option);
      const int value = va_arg(ap, int);
      va_end(ap);
      return fn(option, value);
    }
    default:
      throw tether::VcsError("git_libgit2_opts: option " + std::to_string(option) +
                             " takes arguments tether's libgit2 forwarder does not pass (core/src/vcs/git2_lazy.cpp)");
  }
}
