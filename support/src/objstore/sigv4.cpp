// AWS Signature Version 4 (the S3 flavour: the path is encoded once, the payload hash is sent
// as x-amz-content-sha256) and the RFC 3986 encoding it is built on. SHA-256 and HMAC-SHA256
// come from libsodium, which tether already links.
#include <sodium.h>

#include <algorithm>
#include <string>

#include "tether/support/objstore.hpp"
#include "crypto.hpp"

namespace tether::support::objstore {

std::string sha256_hex(std::string_view data) {
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  return to_hex(out, sizeof out);
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  crypto_auth_hmacsha256_state st;
  unsigned char out[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  crypto_auth_hmacsha256_final(&st, out);
  return std::string(reinterpret_cast<const char*>(out), sizeof out);
}

std::string to_hex(const unsigned char* data, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[data[i] >> 4];
    out[2 * i + 1] = digits[data[i] & 15];
  }
  return out;
}

std::string uri_encode(std::string_view s, bool keep_slash) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3 / 2);
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

namespace {

// Trims a header value and folds inner runs of spaces, as the canonical form requires.
std::string canonical_value(const std::string& v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string sigv4_authorization(SigV4Request& r, const std::string& access_key_id, const std::string& secret_access_key,
                                const std::string& session_token, const std::string& region, const std::string& service,
                                const std::string& amz_date) {
  r.headers["host"] = r.host;
  r.headers["x-amz-date"] = amz_date;
  r.headers["x-amz-content-sha256"] = r.payload_sha256;
  if (!session_token.empty()) r.headers["x-amz-security-token"] = session_token;

  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [k, v] : r.query) query.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(query.begin(), query.end());
  std::string canonical_query;
  for (const auto& [k, v] : query) canonical_query += (canonical_query.empty() ? "" : "&") + k + "=" + v;

  std::string canonical_headers, signed_headers;
  for (const auto& [k, v] : r.headers) {  // std::map: sorted by lowercase name
    canonical_headers += k + ":" + canonical_value(v) + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + k;
  }
  std::string canonical_request = r.method + "\n" + r.path + "\n" + canonical_query + "\n" + canonical_headers + "\n" +
                                  signed_headers + "\n" + r.payload_sha256;
  std::string date = amz_date.substr(0, 8);
  std::string scope = date + "/" + region + "/" + service + "/aws4_request";
  std::string to_sign = "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + sha256_hex(canonical_request);
  std::string key = hmac_sha256("AWS4" + secret_access_key, date);
  key = hmac_sha256(key, region);
  key = hmac_sha256(key, service);
  key = hmac_sha256(key, "aws4_request");
  std::string sig = hmac_sha256(key, to_sign);
  return "AWS4-HMAC-SHA256 Credential=" + access_key_id + "/" + scope + ", SignedHeaders=" + signed_headers +
         ", Signature=" + to_hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

}  // namespace tether::support::objstore
