// libcurl's connect-only mode, loaded at run time, for Leash's TLS byte stream on Linux.
//
// No libcurl headers are needed to build this (most systems have no libcurl -dev package)
// and nothing links libcurl: the library FoundationNetworking already loads is opened with
// dlopen, and the few functions and constants used are declared here and in the .c file.
// On other platforms the target compiles to nothing.

#ifndef CLEASHCURL_H
#define CLEASHCURL_H

#include <stddef.h>

#if defined(__linux__)

/// The libcurl result codes Leash tells apart (CURLcode values from curl.h).
enum {
    LEASH_CURLE_OK = 0,
    LEASH_CURLE_UNSUPPORTED_PROTOCOL = 1,
    LEASH_CURLE_URL_MALFORMAT = 3,
    LEASH_CURLE_NOT_BUILT_IN = 4,
    LEASH_CURLE_COULDNT_RESOLVE_PROXY = 5,
    LEASH_CURLE_COULDNT_RESOLVE_HOST = 6,
    LEASH_CURLE_COULDNT_CONNECT = 7,
    LEASH_CURLE_OUT_OF_MEMORY = 27,
    LEASH_CURLE_OPERATION_TIMEDOUT = 28,
    LEASH_CURLE_SSL_CONNECT_ERROR = 35,
    LEASH_CURLE_ABORTED_BY_CALLBACK = 42,
    LEASH_CURLE_GOT_NOTHING = 52,
    LEASH_CURLE_SEND_ERROR = 55,
    LEASH_CURLE_RECV_ERROR = 56,
    LEASH_CURLE_SSL_CERTPROBLEM = 58,
    LEASH_CURLE_SSL_CIPHER = 59,
    LEASH_CURLE_PEER_FAILED_VERIFICATION = 60,
    LEASH_CURLE_SSL_CACERT_BADFILE = 77,
    LEASH_CURLE_AGAIN = 81,
    LEASH_CURLE_SSL_ISSUER_ERROR = 83,
    LEASH_CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    LEASH_CURLE_SSL_INVALIDCERTSTATUS = 91,
};

/// One connect-only easy handle and what aborting its connect needs.
typedef struct leash_curl_connection leash_curl_connection;

/// Loads libcurl once (later calls return the first outcome).
/// Returns 0 when it is usable; otherwise `leash_curl_load_error()` says why.
int leash_curl_load(void);

/// Why `leash_curl_load` failed (empty when it did not).
const char *leash_curl_load_error(void);

/// A handle that will connect to `url` ("https://host:port/") and stop after the TLS
/// handshake, verifying the server's certificate and host name. `ca_file`, when not NULL, is
/// a PEM file of trusted authorities used instead of the default bundle file (the default
/// CA directory, where libcurl was built with one, stays in use). `proxy`, when not NULL, is
/// an HTTP proxy ("http://[user:password@]host:port") whose CONNECT tunnel the connection
/// goes through; otherwise it goes straight to the host, whatever the environment says.
/// Returns NULL when out of memory or when an option is refused (`*status` says which
/// CURLcode).
leash_curl_connection *leash_curl_create(const char *url, const char *ca_file, const char *proxy, int *status);

/// Connects and runs the TLS handshake, blocking. Returns a CURLcode.
int leash_curl_connect(leash_curl_connection *connection);

/// Makes a `leash_curl_connect` running on another thread return soon (its sockets are shut
/// down) and any later one fail. Safe from any thread until `leash_curl_destroy`.
void leash_curl_abort(leash_curl_connection *connection);

/// The connected socket, or -1.
int leash_curl_socket(leash_curl_connection *connection);

/// Receives up to `length` bytes without blocking. Returns a CURLcode; on LEASH_CURLE_OK,
/// `*received` is the count, 0 when the peer closed the connection.
int leash_curl_receive(leash_curl_connection *connection, void *buffer, size_t length, size_t *received);

/// Sends up to `length` bytes without blocking. Returns a CURLcode; on LEASH_CURLE_OK,
/// `*sent` is how many went.
int leash_curl_send(leash_curl_connection *connection, const void *buffer, size_t length, size_t *sent);

/// The certificate verification result (an X509_V_ERR value with OpenSSL; 0 if unknown).
long leash_curl_verify_result(leash_curl_connection *connection);

/// libcurl's message for the last failure of `code` on this handle.
const char *leash_curl_error_message(leash_curl_connection *connection, int code);

/// Closes the connection (TLS close-notify, then the socket) and frees the handle.
void leash_curl_destroy(leash_curl_connection *connection);

#endif  // __linux__

#endif  // CLEASHCURL_H
