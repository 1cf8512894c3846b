// redact.cpp: finding credentials in free text (URLs, key=value DSNs, query strings,
// Authorization headers) without trusting the text to parse.
#include "tether/support/redact.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace tether::support {
namespace {

struct Span {
  std::size_t begin, end;  // [begin, end) of the credential in the text
  bool quoted = false;     // a '...' value of a key=value DSN, quotes included
};

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string folded(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '-' ? '_' : lower(c);
  return out;
}

bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool secret_key(std::string_view key) {
  std::string k = folded(key);
  k.erase(0, k.find_first_not_of('_'));  // `--token=...` on a command line
  for (std::string_view end : {"password", "passwd", "pwd", "secret", "token", "signature", "credential"})
    if (k.size() >= end.size() && k.compare(k.size() - end.size(), end.size(), end) == 0) return true;
  for (std::string_view exact : {"sig", "api_key", "apikey", "access_key", "secret_key", "private_key", "account_key"})
    if (k == exact) return true;
  return false;
}

// scheme://user:PASS@host, and https://TOKEN@host.
void userinfo_spans(std::string_view s, std::vector<Span>& out) {
  for (std::size_t p = s.find("://"); p != std::string_view::npos; p = s.find("://", p + 3)) {
    std::size_t sb = p;
    while (sb > 0 && (is_word(s[sb - 1]) || s[sb - 1] == '+' || s[sb - 1] == '.')) --sb;
    if (sb == p) continue;
    const std::string scheme = folded(s.substr(sb, p - sb));
    const std::size_t a = p + 3;
    std::size_t end = a;
    while (end < s.size() && !std::strchr("/?#\"'<>` \t\r\n", s[end])) ++end;
    // The last '@' of the authority ends the userinfo (a raw '@' may sit in a password).
    std::size_t at = std::string_view::npos;
    for (std::size_t i = a; i < end; ++i)
      if (s[i] == '@') at = i;
    if (at == std::string_view::npos || at == a) continue;
    std::string_view ui = s.substr(a, at - a);
    if (auto colon = ui.find(':'); colon != std::string_view::npos) {
      if (colon + 1 < ui.size()) out.push_back({a + colon + 1, at});
    } else if (scheme == "http" || scheme == "https" || scheme == "ftp" || scheme == "ftps" || scheme.ends_with("+https") ||
               scheme.ends_with("+http")) {
      out.push_back({a, at});
    }
  }
}

// key=value and key = 'quoted value' (DSN), ?key=value&... (query string).
void keyword_spans(std::string_view s, std::vector<Span>& out) {
  for (std::size_t q = s.find('='); q != std::string_view::npos; q = s.find('=', q + 1)) {
    std::size_t ke = q;
    while (ke > 0 && s[ke - 1] == ' ') --ke;
    std::size_t kb = ke;
    while (kb > 0 && is_word(s[kb - 1])) --kb;
    if (kb == ke || !secret_key(s.substr(kb, ke - kb))) continue;
    const char before = kb == 0 ? ' ' : s[kb - 1];
    const bool query = before == '?' || before == '&' || before == ';';
    if (!query && !is_space(before) && !std::strchr(":,(\"'[{", before)) continue;  // `/d/password=x` is a path
    std::size_t v = q + 1;
    if (!query)
      while (v < s.size() && s[v] == ' ') ++v;
    std::size_t e = v;
    if (!query && v < s.size() && s[v] == '\'') {
      for (e = v + 1; e < s.size() && s[e] != '\''; ++e)
        if (s[e] == '\\' && e + 1 < s.size()) ++e;
      if (e < s.size()) ++e;
      if (e - v > 2) out.push_back({v, e, true});
      continue;
    }
    // Unquoted DSN values end at whitespace, as libpq reads them, or at a double quote: the
    // text may be JSON (error details) or quote a DSN, and the quote is not the secret.
    const char* stop = query ? "&#\"'<> \t\r\n" : "\" \t\r\n";
    while (e < s.size() && !std::strchr(stop, s[e])) ++e;
    if (e > v) out.push_back({v, e});
  }
}

// Authorization: Bearer TOKEN / Basic BASE64 / token TOKEN
void header_spans(std::string_view s, std::vector<Span>& out) {
  const std::string low = folded(s);
  for (std::size_t p = low.find("authorization:"); p != std::string::npos; p = low.find("authorization:", p + 1)) {
    std::size_t i = p + 14;
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t w = i;
    while (w < s.size() && !is_space(s[w])) ++w;  // the scheme, or the credentials alone
    std::size_t v = w;
    while (v < s.size() && s[v] == ' ') ++v;
    std::size_t e = v;
    while (e < s.size() && !std::strchr("\"' \t\r\n", s[e])) ++e;
    if (e > v) out.push_back({v, e});
    else if (w > i) out.push_back({i, w});
  }
}

std::vector<Span> spans_of(std::string_view s) {
  std::vector<Span> spans;
  userinfo_spans(s, spans);
  keyword_spans(s, spans);
  header_spans(s, spans);
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  return spans;
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned v = 0;
    if (s[i] == '%' && i + 3 <= s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr == s.data() + i + 3) {
      out += static_cast<char>(v);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

void replace_all(std::string& s, std::string_view what, std::string_view with) {
  if (what.empty()) return;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
}

// Every span starts from a '=' (keyword_spans), a "://" (userinfo_spans) or an
// "authorization:" matched case-blind (header_spans; folding maps '-' to '_', which that word
// lacks): text with none of them has nothing to hide. Most printed lines have none, and the
// three scans (one of them folding a copy of the text) would cost more than the printing.
bool may_hold_secret(std::string_view s) {
  if (s.find('=') != std::string_view::npos) return true;
  constexpr std::string_view kHeader = "authorization";
  for (std::size_t c = s.find(':'); c != std::string_view::npos; c = s.find(':', c + 1)) {
    if (s.substr(c, 3) == "://") return true;
    if (c >= kHeader.size()) {
      bool same = true;
      for (std::size_t i = 0; i < kHeader.size() && same; ++i) same = lower(s[c - kHeader.size() + i]) == kHeader[i];
      if (same) return true;
    }
  }
  return false;
}

}  // namespace

std::string redact_secrets(std::string_view text) {
  std::string out;
  append_redacted(out, text);
  return out;
}

void append_redacted(std::string& out, std::string_view text) {
  if (!may_hold_secret(text)) {
    out.append(text);
    return;
  }
  std::size_t at = 0;
  for (const Span& sp : spans_of(text)) {
    if (sp.end <= at) continue;  // inside one already hidden
    out.append(text.substr(at, sp.begin > at ? sp.begin - at : 0));
    out.append(kRedacted);
    at = sp.end;
  }
  out.append(text.substr(std::min(at, text.size())));
}

std::vector<std::string> secrets_in(std::string_view text) {
  std::vector<std::string> found;
  for (const Span& sp : spans_of(text)) {
    std::string_view raw = text.substr(sp.begin, sp.end - sp.begin);
    found.emplace_back(raw);
    if (sp.quoted) {
      std::string plain;
      for (std::size_t i = 1; i + 1 < raw.size(); ++i) {
        if (raw[i] == '\\' && i + 2 < raw.size()) ++i;
        plain += raw[i];
      }
      found.push_back(std::move(plain));
    } else {
      found.push_back(percent_decoded(raw));
    }
  }
  std::erase_if(found, [](const std::string& s) { return s.empty(); });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.size() != b.size() ? a.size() > b.size() : a < b; });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

std::string redact_secrets_of(std::string_view message, std::string_view source) {
  std::string out = redact_secrets(message);
  for (const auto& secret : secrets_in(source)) replace_all(out, secret, kRedacted);
  return out;
}

}  // namespace tether::support
