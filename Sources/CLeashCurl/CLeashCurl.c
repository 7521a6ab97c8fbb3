// See include/CLeashCurl.h. curl_easy_setopt and curl_easy_getinfo are variadic, so they
// are called from here, where C passes each argument with its proper type.

#include "CLeashCurl.h"

#if defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// The parts of curl.h used here, with the values curl.h gives them (they are ABI: stable
// across libcurl 7 and 8).
typedef void CURL;
typedef long long curl_off_t;

enum {
    CURL_GLOBAL_ALL = 3,
    CURL_HTTP_VERSION_1_1 = 2,
    CURL_SOCKET_BAD = -1,
    CURL_ERROR_SIZE = 256,

    CURLOPT_URL = 10002,
    CURLOPT_PROXY = 10004,
    CURLOPT_HTTPPROXYTUNNEL = 61,
    CURLOPT_ERRORBUFFER = 10010,
    CURLOPT_NOPROGRESS = 43,
    CURLOPT_XFERINFODATA = 10057,
    CURLOPT_SSL_VERIFYPEER = 64,
    CURLOPT_CAINFO = 10065,
    CURLOPT_SSL_VERIFYHOST = 81,
    CURLOPT_HTTP_VERSION = 84,
    CURLOPT_NOSIGNAL = 99,
    CURLOPT_CONNECT_ONLY = 141,
    CURLOPT_OPENSOCKETFUNCTION = 20163,
    CURLOPT_OPENSOCKETDATA = 10164,
    CURLOPT_CLOSESOCKETFUNCTION = 20208,
    CURLOPT_CLOSESOCKETDATA = 10209,
    CURLOPT_XFERINFOFUNCTION = 20219,

    CURLINFO_SSL_VERIFYRESULT = 0x200000 + 13,
    CURLINFO_ACTIVESOCKET = 0x500000 + 44,
};

/// curl.h's `struct curl_sockaddr`, what the open-socket callback gets.
struct leash_curl_sockaddr {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;
};

/// The libcurl functions used, found with dlsym.
static struct {
    int (*global_init)(long flags);
    CURL *(*easy_init)(void);
    int (*easy_setopt)(CURL *handle, int option, ...);
    int (*easy_perform)(CURL *handle);
    int (*easy_getinfo)(CURL *handle, int info, ...);
    int (*easy_recv)(CURL *handle, void *buffer, size_t length, size_t *received);
    int (*easy_send)(CURL *handle, const void *buffer, size_t length, size_t *sent);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(int code);
} curl;

/// Loading happens once; its outcome (0 or -1) and, on failure, the reason stay for later calls.
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[256] = "";

/// How many sockets of one connect are tracked for `leash_curl_abort` (libcurl opens one per
/// address family it races, so two in practice).
#define TRACKED_SOCKETS 8

struct leash_curl_connection {
    /// The easy handle, in connect-only mode.
    CURL *easy;
    /// Guards `aborted` and `sockets`, which the connecting thread's callbacks and
    /// `leash_curl_abort` share.
    pthread_mutex_t lock;
    /// Set by `leash_curl_abort`: no new socket, and the progress callback stops the connect.
    int aborted;
    /// libcurl's open sockets (-1 for a free slot).
    int sockets[TRACKED_SOCKETS];
    /// libcurl's message for the last failure (CURLOPT_ERRORBUFFER).
    char error[CURL_ERROR_SIZE];
};

/// `name` in `library`; the first missing one is reported in `load_error`.
static void *symbol(void *library, const char *name, int *missing) {
    void *address = dlsym(library, name);
    if (address == NULL && *missing == 0) {
        *missing = 1;
        snprintf(load_error, sizeof load_error, "libcurl has no %s", name);
    }
    return address;
}

/// Opens libcurl and finds its functions (run once, by `leash_curl_load`).
static void load(void) {
    // The library FoundationNetworking uses first (already loaded, then), then the other
    // builds Debian and Ubuntu ship.
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
    void *library = NULL;
    for (size_t index = 0; index < sizeof names / sizeof names[0] && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl: %s", reason ? reason : "not found");
        return;
    }
    int missing = 0;
    *(void **)&curl.global_init = symbol(library, "curl_global_init", &missing);
    *(void **)&curl.easy_init = symbol(library, "curl_easy_init", &missing);
    *(void **)&curl.easy_setopt = symbol(library, "curl_easy_setopt", &missing);
    *(void **)&curl.easy_perform = symbol(library, "curl_easy_perform", &missing);
    *(void **)&curl.easy_getinfo = symbol(library, "curl_easy_getinfo", &missing);
    *(void **)&curl.easy_recv = symbol(library, "curl_easy_recv", &missing);
    *(void **)&curl.easy_send = symbol(library, "curl_easy_send", &missing);
    *(void **)&curl.easy_cleanup = symbol(library, "curl_easy_cleanup", &missing);
    *(void **)&curl.easy_strerror = symbol(library, "curl_easy_strerror", &missing);
    if (missing) return;
    // Reference-counted by libcurl, so FoundationNetworking's own call does not conflict.
    int status = curl.global_init(CURL_GLOBAL_ALL);
    if (status != 0) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed (%d)", status);
        return;
    }
    load_status = 0;
}

int leash_curl_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *leash_curl_load_error(void) {
    leash_curl_load();
    return load_error;
}

/// Opens libcurl's sockets (close-on-exec, so that a process spawned meanwhile never inherits
/// one) and keeps them for `leash_curl_abort`; refuses once aborted.
static int open_socket(void *client, int purpose, struct leash_curl_sockaddr *address) {
    (void)purpose;
    struct leash_curl_connection *connection = client;
    pthread_mutex_lock(&connection->lock);
    int fd = CURL_SOCKET_BAD;
    if (!connection->aborted) {
        fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
        for (int index = 0; fd >= 0 && index < TRACKED_SOCKETS; index++) {
            if (connection->sockets[index] < 0) {
                connection->sockets[index] = fd;
                break;
            }
        }
    }
    pthread_mutex_unlock(&connection->lock);
    return fd;
}

/// Forgets a socket before closing it, so that `leash_curl_abort` never touches a number the
/// system may already have given to someone else.
static int close_socket(void *client, int fd) {
    struct leash_curl_connection *connection = client;
    pthread_mutex_lock(&connection->lock);
    for (int index = 0; index < TRACKED_SOCKETS; index++) {
        if (connection->sockets[index] == fd) connection->sockets[index] = -1;
    }
    pthread_mutex_unlock(&connection->lock);
    return close(fd);
}

/// Called by libcurl while it works: a non-zero answer ends the connect.
static int progress(void *client, curl_off_t download_total, curl_off_t downloaded, curl_off_t upload_total,
                    curl_off_t uploaded) {
    (void)download_total;
    (void)downloaded;
    (void)upload_total;
    (void)uploaded;
    struct leash_curl_connection *connection = client;
    pthread_mutex_lock(&connection->lock);
    int aborted = connection->aborted;
    pthread_mutex_unlock(&connection->lock);
    return aborted;
}

leash_curl_connection *leash_curl_create(const char *url, const char *ca_file, const char *proxy, int *status) {
    *status = LEASH_CURLE_OUT_OF_MEMORY;
    if (leash_curl_load() != 0) {
        *status = LEASH_CURLE_NOT_BUILT_IN;
        return NULL;
    }
    struct leash_curl_connection *connection = calloc(1, sizeof *connection);
    if (connection == NULL) return NULL;
    pthread_mutex_init(&connection->lock, NULL);
    for (int index = 0; index < TRACKED_SOCKETS; index++) connection->sockets[index] = -1;
    connection->easy = curl.easy_init();
    if (connection->easy == NULL) {
        pthread_mutex_destroy(&connection->lock);
        free(connection);
        return NULL;
    }
    CURL *easy = connection->easy;
    int result = LEASH_CURLE_OK;
#define SET(option, value) \
    if (result == LEASH_CURLE_OK) result = curl.easy_setopt(easy, option, value)
    SET(CURLOPT_URL, url);
    SET(CURLOPT_CONNECT_ONLY, 1L);
    // No signals: libcurl would otherwise change SIGPIPE's handler process-wide around its
    // calls, racing other threads. Writes use MSG_NOSIGNAL instead.
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_ERRORBUFFER, connection->error);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    if (ca_file != NULL) SET(CURLOPT_CAINFO, ca_file);
    if (proxy != NULL) {
        // Through an HTTP proxy's CONNECT tunnel (HTTPTransport's https_proxy); libcurl reads
        // the credentials in the proxy's URL.
        SET(CURLOPT_PROXY, proxy);
        SET(CURLOPT_HTTPPROXYTUNNEL, 1L);
    } else {
        // Like the plain TCP stream: straight to the host, whatever *_proxy variables say.
        SET(CURLOPT_PROXY, "");
    }
    // ALPN offers HTTP/1.1 only: the WebSocket handshake is an HTTP/1.1 request.
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    SET(CURLOPT_OPENSOCKETFUNCTION, open_socket);
    SET(CURLOPT_OPENSOCKETDATA, connection);
    SET(CURLOPT_CLOSESOCKETFUNCTION, close_socket);
    SET(CURLOPT_CLOSESOCKETDATA, connection);
    SET(CURLOPT_XFERINFOFUNCTION, progress);
    SET(CURLOPT_XFERINFODATA, connection);
    SET(CURLOPT_NOPROGRESS, 0L);
#undef SET
    if (result != LEASH_CURLE_OK) {
        *status = result;
        leash_curl_destroy(connection);
        return NULL;
    }
    *status = LEASH_CURLE_OK;
    return connection;
}

int leash_curl_connect(leash_curl_connection *connection) {
    return curl.easy_perform(connection->easy);
}

void leash_curl_abort(leash_curl_connection *connection) {
    pthread_mutex_lock(&connection->lock);
    connection->aborted = 1;
    for (int index = 0; index < TRACKED_SOCKETS; index++) {
        // Shut down, not closed: the descriptor stays libcurl's to close.
        if (connection->sockets[index] >= 0) shutdown(connection->sockets[index], SHUT_RDWR);
    }
    pthread_mutex_unlock(&connection->lock);
}

int leash_curl_socket(leash_curl_connection *connection) {
    int fd = CURL_SOCKET_BAD;
    if (curl.easy_getinfo(connection->easy, CURLINFO_ACTIVESOCKET, &fd) != LEASH_CURLE_OK) return CURL_SOCKET_BAD;
    return fd;
}

int leash_curl_receive(leash_curl_connection *connection, void *buffer, size_t length, size_t *received) {
    *received = 0;
    return curl.easy_recv(connection->easy, buffer, length, received);
}

int leash_curl_send(leash_curl_connection *connection, const void *buffer, size_t length, size_t *sent) {
    *sent = 0;
    return curl.easy_send(connection->easy, buffer, length, sent);
}

long leash_curl_verify_result(leash_curl_connection *connection) {
    long result = 0;
    if (curl.easy_getinfo(connection->easy, CURLINFO_SSL_VERIFYRESULT, &result) != LEASH_CURLE_OK) return 0;
    return result;
}

const char *leash_curl_error_message(leash_curl_connection *connection, int code) {
    if (connection != NULL && connection->error[0] != '\0') return connection->error;
    if (curl.easy_strerror != NULL) return curl.easy_strerror(code);
    return "libcurl error";
}

void leash_curl_destroy(leash_curl_connection *connection) {
    if (connection == NULL) return;
    curl.easy_cleanup(connection->easy);
    pthread_mutex_destroy(&connection->lock);
    free(connection);
}

#endif  // __linux__
