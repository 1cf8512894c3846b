// tether/testing/s3.hpp (tests and bench only): the throwaway Ceph object gateway that
// tests/s3/with-cluster starts, as its TETHER_TEST_S3_* settings describe it; the objstore
// options that reach it; and the AWS CLI pointed at it (an independent client, to write and
// read test objects without our own). Include it only where objstore and process are linked.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "tether/support/objstore.hpp"
#include "tether/support/process.hpp"

namespace tether::testing {

struct S3Cluster {
  std::string endpoint, access_key_id, secret_access_key, region;

  // The cluster the environment names; `present()` is false outside with-cluster.
  static S3Cluster from_env() {
    auto env = [](const char* name) {
      const char* v = std::getenv(name);
      return std::string(v ? v : "");
    };
    return S3Cluster{env("TETHER_TEST_S3_ENDPOINT"), env("TETHER_TEST_S3_ACCESS_KEY_ID"),
                     env("TETHER_TEST_S3_SECRET_ACCESS_KEY"), env("TETHER_TEST_S3_REGION")};
  }
  bool present() const { return !endpoint.empty() && !access_key_id.empty(); }
  bool has_aws_cli() const { return ::access("/usr/bin/aws", X_OK) == 0; }

  // Store options that reach the gateway: its endpoint over plain http, the static keys.
  support::objstore::Options options() const {
    support::objstore::Options o;
    o.values["endpoint"] = endpoint;
    o.values["access_key_id"] = access_key_id;
    o.values["secret_access_key"] = secret_access_key;
    o.values["region"] = region;
    o.values["allow_http"] = "true";
    return o;
  }

  // /usr/bin/aws --endpoint-url ENDPOINT ARGS... (the keys come from the environment
  // with-cluster set up).
  support::ProcessResult aws(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"/usr/bin/aws", "--endpoint-url", endpoint};
    argv.insert(argv.end(), args.begin(), args.end());
    return support::run_process(argv);
  }

  // A bucket of this process's own, made through the AWS CLI: `<stem>-<pid>-<n>` (the stem
  // lowercase, so the name is a valid bucket name). Throws with the CLI's error on failure.
  std::string new_bucket(const std::string& stem) const {
    static std::atomic<int> n{0};
    std::string b = stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
    support::ProcessResult r = aws({"s3api", "create-bucket", "--bucket", b});
    if (!r.ok()) throw std::runtime_error("create-bucket " + b + ": " + r.err);
    return b;
  }
};

}  // namespace tether::testing
