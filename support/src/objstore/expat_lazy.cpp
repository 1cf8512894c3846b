// expat_lazy.cpp: libexpat is loaded when an object store's first XML answer is parsed, not
// when a plugin linking the object-store client is loaded (the file plugin, in every command
// on a file object: about 0.1 M instructions and 0.05 ms of an empty program's start). Same
// scheme as curl_lazy.cpp: the client defines the expat functions xml.cpp calls, each
// forwarding to the real one (signatures from expat.h by decltype;
// tether/support/lazy_library.hpp). A missing expat is a StoreError.
#include <expat.h>

#include <string>

#include "tether/support/lazy_library.hpp"
#include "tether/support/objstore.hpp"

namespace {

// expat 2's soname is libexpat.so.1.
constinit tether::support::LazyLibrary libexpat("libexpat.so.1", "the XML parser library",
                                                "install expat (Debian: libexpat1) to reach object stores");

[[noreturn]] void fail(const std::string& message) {
  throw tether::support::objstore::StoreError(tether::support::objstore::ErrorKind::Other, message);
}

}  // namespace

#define TETHER_EXPAT(ret, name, params, args) TETHER_LAZY_FORWARD(libexpat, fail, ret, name, params, args)

TETHER_EXPAT(XML_Parser, XML_ParserCreate, (const XML_Char* encoding), (encoding))
TETHER_EXPAT(void, XML_ParserFree, (XML_Parser parser), (parser))
TETHER_EXPAT(void, XML_SetUserData, (XML_Parser parser, void* userData), (parser, userData))
TETHER_EXPAT(void, XML_SetElementHandler, (XML_Parser parser, XML_StartElementHandler start, XML_EndElementHandler end),
             (parser, start, end))
TETHER_EXPAT(void, XML_SetCharacterDataHandler, (XML_Parser parser, XML_CharacterDataHandler handler),
             (parser, handler))
TETHER_EXPAT(void, XML_SetEntityDeclHandler, (XML_Parser parser, XML_EntityDeclHandler handler), (parser, handler))
TETHER_EXPAT(void, XML_SetStartDoctypeDeclHandler, (XML_Parser parser, XML_StartDoctypeDeclHandler start),
             (parser, start))
TETHER_EXPAT(int, XML_SetParamEntityParsing, (XML_Parser parser, enum XML_ParamEntityParsing parsing),
             (parser, parsing))
TETHER_EXPAT(enum XML_Status, XML_Parse, (XML_Parser parser, const char* s, int len, int isFinal),
             (parser, s, len, isFinal))
TETHER_EXPAT(enum XML_Status, XML_StopParser, (XML_Parser parser, XML_Bool resumable), (parser, resumable))
TETHER_EXPAT(enum XML_Error, XML_GetErrorCode, (XML_Parser parser), (parser))
TETHER_EXPAT(const XML_LChar*, XML_ErrorString, (enum XML_Error code), (code))
