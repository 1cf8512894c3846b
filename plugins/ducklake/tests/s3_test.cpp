// Deep verify of a lake whose data path is in an object store: the throwaway Ceph object
// gateway of tests/s3/with-cluster (skipped, exit 77, without it), the fixture's Parquet files
// uploaded and then removed or replaced with Debian's AWS CLI, credentials from a secrets rule
// handed to the plugin as the host hands them.
#include <doctest/doctest.h>

#include <unistd.h>

#include "support.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/s3.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::ducklake::testing;
using tether::testing::TempDir;

namespace {

// The cluster of tests/s3/with-cluster; without one the S3 cases are skipped (exit 77).
const tether::testing::S3Cluster& cluster() {
  static const tether::testing::S3Cluster c = [] {
    auto c = tether::testing::S3Cluster::from_env();
    if (!c.present()) {
      std::fprintf(stderr, "no S3 cluster (run through tests/s3/with-cluster): the S3 cases are skipped\n");
      std::exit(77);
    }
    return c;
  }();
  return c;
}

tether::support::ProcessResult aws(const std::vector<std::string>& args) { return cluster().aws(args); }

void configure(Plugin& be, const std::string& bucket, const std::string& secret) {
  tether::sdk::ConfigureRequest req;
  req.rules = Json{{"s3://" + bucket + "/",
                    {{"endpoint", cluster().endpoint},
                     {"access_key_id", cluster().access_key_id},
                     {"secret_access_key", secret},
                     {"region", cluster().region},
                     {"storage_options", {{"allow_http", true}}}}}};
  be->configure(req);
}

}  // namespace

TEST_CASE("verify --deep of a lake whose data files are in S3: listed once, sizes compared") {
  std::string bucket;
  REQUIRE_NOTHROW(bucket = cluster().new_bucket("lake"));
  fs::path files = fixtures() / "duckdb" / "delete_ignore_extra_columns";
  REQUIRE(aws({"s3", "cp", "--recursive", "--quiet", files.string(), "s3://" + bucket + "/lake/"}).ok());

  Plugin be;
  configure(be, bucket, cluster().secret_access_key);
  TempDir tmp("tether-ducklake-s3");
  fs::path db = load_sqlite(fixtures() / "sqlite" / "delete_ignore_extra_columns.sql", tmp.path() / "dec.sqlite");
  Json loc{{"metadata", "ducklake:sqlite:" + db.string()}, {"data_path", "s3://" + bucket + "/lake/"}};
  auto fp = be->fingerprint(loc);
  auto ok = be->verify(loc, fp, std::nullopt, true);
  CHECK(ok.status == tether::sdk::VerifyStatus::Ok);
  CHECK(ok.message == "");

  // A file of another size than the catalog records: drifted, naming it and both sizes.
  std::string data_key;
  for (const auto& f : fs::recursive_directory_iterator(files))
    if (f.is_regular_file() && !contains(f.path().filename().string(), "-delete"))
      data_key = "lake/" + fs::relative(f.path(), files).string();
  REQUIRE(!data_key.empty());
  fs::path junk = tmp.path() / "junk";
  std::ofstream(junk) << "not parquet";
  REQUIRE(aws({"s3", "cp", "--quiet", junk.string(), "s3://" + bucket + "/" + data_key}).ok());
  auto resized = be->verify(loc, fp, std::nullopt, true);
  CHECK(resized.status == tether::sdk::VerifyStatus::Drifted);
  CHECK(contains(resized.message, "1 of 2 files visible at snapshot 2 have another size than the catalog records"));
  CHECK(contains(resized.message, data_key + " (645 bytes recorded, 11 there)"));

  // A file gone: missing.
  REQUIRE(aws({"s3", "rm", "--quiet", "s3://" + bucket + "/" + data_key}).ok());
  auto gone = be->verify(loc, fp, std::nullopt, true);
  CHECK(gone.status == tether::sdk::VerifyStatus::Missing);
  CHECK(contains(gone.message, "1 of 2 files visible at snapshot 2 are gone, e.g. s3://" + bucket + "/" + data_key));

  // Not deep: the catalog alone.
  CHECK(be->verify(loc, fp, std::nullopt, false).status == tether::sdk::VerifyStatus::Ok);

  // Keys the store refuses: unknown (nothing is said about the files), with the way out.
  Plugin wrong;
  configure(wrong, bucket, "not-the-secret");
  auto refused = wrong->verify(loc, fp, std::nullopt, true);
  CHECK(refused.status == tether::sdk::VerifyStatus::Unknown);
  CHECK(contains(refused.message, "access denied"));
  CHECK(contains(refused.message, ".tether/secrets.toml [uris.\"s3://" + bucket + "/\"]"));
  CHECK_FALSE(contains(refused.message, "not-the-secret"));

  // A data path no store can hold (a manifest's hostile value): unknown, nothing sent.
  Json hostile = loc;
  hostile["data_path"] = "s3://evil.com#/lake/";
  auto bad = be->verify(hostile, fp, std::nullopt, true);
  CHECK(bad.status == tether::sdk::VerifyStatus::Unknown);
  CHECK(contains(bad.message, "cannot use object-store URL 's3://evil.com#/lake/'"));
  hostile["data_path"] = "s3://Evil.Host:80/lake/";
  bad = be->verify(hostile, fp, std::nullopt, true);
  CHECK(bad.status == tether::sdk::VerifyStatus::Unknown);
  CHECK(contains(bad.message, "not a valid bucket name"));
}
