// libpq_lazy.cpp: libpq is loaded when a command first talks to PostgreSQL, not at start-up.
//
// Linked directly, libpq.so.5 brings about 20 more shared objects into every tether process
// (LDAP, Kerberos, SASL, GnuTLS and its ASN.1 tables, p11-kit), whose loading, relocation
// and constructors were a third of `tether --version`'s CPU. Only publish and import from
// PostgreSQL use it. So the registry defines the libpq functions it calls, each forwarding
// to the real one in libpq.so.5, opened on the first call. The signatures come from
// libpq-fe.h (decltype), so a mismatch does not compile.
#include <libpq-fe.h>

#include "tether/errors.hpp"
#include "tether/support/lazy_library.hpp"

namespace {

constinit tether::support::LazyLibrary libpq("libpq.so.5", "the PostgreSQL client library",
                                    "install libpq (Debian: libpq5) to publish to or import from PostgreSQL");

[[noreturn]] void fail(const std::string& message) { throw tether::TetherError(message); }

}  // namespace

#define TETHER_PQ(ret, name, params, args) TETHER_LAZY_FORWARD(libpq, fail, ret, name, params, args)

TETHER_PQ(void, PQclear, (PGresult* res), (res))
TETHER_PQ(PGconn*, PQconnectdb, (const char* conninfo), (conninfo))
TETHER_PQ(PGconn*, PQconnectdbParams, (const char* const* keywords, const char* const* values, int expand_dbname),
          (keywords, values, expand_dbname))
TETHER_PQ(void, PQconninfoFree, (PQconninfoOption * options), (options))
TETHER_PQ(PQconninfoOption*, PQconninfoParse, (const char* conninfo, char** errmsg), (conninfo, errmsg))
TETHER_PQ(char*, PQerrorMessage, (const PGconn* conn), (conn))
TETHER_PQ(PGresult*, PQexec, (PGconn * conn, const char* query), (conn, query))
TETHER_PQ(PGresult*, PQexecParams,
          (PGconn * conn, const char* command, int nParams, const Oid* paramTypes, const char* const* paramValues,
           const int* paramLengths, const int* paramFormats, int resultFormat),
          (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
TETHER_PQ(PGresult*, PQexecPrepared,
          (PGconn * conn, const char* stmtName, int nParams, const char* const* paramValues, const int* paramLengths,
           const int* paramFormats, int resultFormat),
          (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))
TETHER_PQ(void, PQfinish, (PGconn * conn), (conn))
TETHER_PQ(char*, PQfname, (const PGresult* res, int field_num), (res, field_num))
TETHER_PQ(void, PQfreemem, (void* ptr), (ptr))
TETHER_PQ(Oid, PQftype, (const PGresult* res, int field_num), (res, field_num))
TETHER_PQ(PGresult*, PQgetResult, (PGconn * conn), (conn))
TETHER_PQ(int, PQgetisnull, (const PGresult* res, int tup_num, int field_num), (res, tup_num, field_num))
TETHER_PQ(char*, PQgetvalue, (const PGresult* res, int tup_num, int field_num), (res, tup_num, field_num))
TETHER_PQ(char*, PQhost, (const PGconn* conn), (conn))
TETHER_PQ(int, PQnfields, (const PGresult* res), (res))
TETHER_PQ(int, PQntuples, (const PGresult* res), (res))
TETHER_PQ(char*, PQport, (const PGconn* conn), (conn))
TETHER_PQ(PGresult*, PQprepare,
          (PGconn * conn, const char* stmtName, const char* query, int nParams, const Oid* paramTypes),
          (conn, stmtName, query, nParams, paramTypes))
TETHER_PQ(int, PQputCopyData, (PGconn * conn, const char* buffer, int nbytes), (conn, buffer, nbytes))
TETHER_PQ(int, PQputCopyEnd, (PGconn * conn, const char* errormsg), (conn, errormsg))
TETHER_PQ(char*, PQresultErrorField, (const PGresult* res, int fieldcode), (res, fieldcode))
TETHER_PQ(char*, PQresultErrorMessage, (const PGresult* res), (res))
TETHER_PQ(ExecStatusType, PQresultStatus, (const PGresult* res), (res))
TETHER_PQ(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn * conn, PQnoticeProcessor proc, void* arg),
          (conn, proc, arg))
TETHER_PQ(ConnStatusType, PQstatus, (const PGconn* conn), (conn))
