// pg: the two SQL reads the `neon` backend makes on a branch's compute through libpq
// (docs/backends.md#neon): the fingerprint probe and the count of sessions writing.
#pragma once

#include <string>

namespace tether::neon {

struct Probe {
  std::string lsn;         // pg_current_wal_flush_lsn(), e.g. 0/16B3748
  std::string commit_xid;  // the newest committed xid, or `<n` when none in the window
};

// A compute restart rounds the next xid up and checkpoints move the LSN without any write;
// only a committed transaction changes commit_xid. BackendError naming the URI (password
// redacted) when the connection or the query fails.
Probe probe(const std::string& uri);
// Other client sessions that hold a write transaction open or are running a statement,
// cluster-wide (no database filter).
long active_writers(const std::string& uri);

}  // namespace tether::neon
