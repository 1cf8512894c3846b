// sdk::Backend::secret_rule_for gives one object's own secrets.toml rule (the longest URI
// prefix that starts the locator's first non-empty URI key), and secrets_for layers that rule
// over the kind defaults; a locator without a URI, or no rule that matches, gets none.
#include <string>

#include <doctest/doctest.h>

#include "tether/sdk/backend.hpp"

namespace {

using tether::sdk::Json;

struct Probe : tether::sdk::Backend<Probe> {};

Probe configured(const Json& defaults, const Json& rules) {
  Probe p;
  tether::sdk::ConfigureRequest r;
  r.defaults = defaults;
  r.rules = rules;
  p.remember_configuration(r);
  return p;
}

}  // namespace

TEST_CASE("secret_rule_for: the longest matching prefix, without the defaults") {
  const Json defaults{{"region", "eu-west-1"}, {"storage_options", {{"allow_http", "true"}}}};
  const Json rules{{"s3://bucket/", {{"access_key_id", "A"}}},
                   {"s3://bucket/deep/", {{"access_key_id", "B"}, {"region", "us-east-1"}}},
                   {"s3://other/", "not a table"}};
  Probe p = configured(defaults, rules);
  CHECK(p.secret_rule_for(Json{{"uri", "s3://bucket/deep/x"}}) == Json{{"access_key_id", "B"}, {"region", "us-east-1"}});
  CHECK(p.secret_rule_for(Json{{"uri", "s3://bucket/x"}}) == Json{{"access_key_id", "A"}});
  CHECK(p.secret_rule_for(Json{{"uri", "s3://other/x"}}) == Json::object());  // a rule that is no table: none
  CHECK(p.secret_rule_for(Json{{"uri", "s3://nowhere/x"}}) == Json::object());
  CHECK(p.secret_rule_for(Json{{"branch", "main"}}) == Json::object());  // no URI key
  // The first non-empty URI key of those asked for, in order.
  CHECK(p.secret_rule_for(Json{{"uri", ""}, {"path", "s3://bucket/y"}}) == Json{{"access_key_id", "A"}});
  CHECK(p.secret_rule_for(Json{{"path", "s3://bucket/deep/y"}, {"uri", "s3://bucket/y"}}, {"path", "uri"}) ==
        Json{{"access_key_id", "B"}, {"region", "us-east-1"}});

  // secrets_for: the rule's keys over the defaults; the defaults alone when nothing matches.
  CHECK(p.secrets_for(Json{{"uri", "s3://bucket/deep/x"}}) ==
        Json{{"access_key_id", "B"}, {"region", "us-east-1"}, {"storage_options", {{"allow_http", "true"}}}});
  CHECK(p.secrets_for(Json{{"uri", "s3://nowhere/x"}}) == defaults);
}

TEST_CASE("secret_rule_for: an empty prefix matches every URI, and only a URI") {
  Probe p = configured(Json::object(), Json{{"", {{"k", "v"}}}});
  CHECK(p.secret_rule_for(Json{{"uri", "/data/raw"}}) == Json{{"k", "v"}});
  CHECK(p.secret_rule_for(Json::object()) == Json::object());
  Probe none = configured(Json(nullptr), Json(nullptr));
  CHECK(none.secret_rule_for(Json{{"uri", "/data"}}) == Json::object());
  CHECK(none.secrets_for(Json{{"uri", "/data"}}) == Json::object());
}
