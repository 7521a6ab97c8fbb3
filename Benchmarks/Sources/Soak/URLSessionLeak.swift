import Foundation
import HeapInfo
import LoopbackServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What URLSession itself leaves on the heap for each task it starts, measured in this
/// process with URLSession alone (no Leash), so that the soak can tell Leash's memory from
/// FoundationNetworking's.
///
/// On Linux every task leaks a little inside FoundationNetworking: `_EasyHandle.set(url:)`
/// checks the URL's host with a libcurl URL handle (`CFURLSessionCurlHostIsEqual`), which
/// it releases with `curl_free` instead of `curl_url_cleanup`, so the URL's parsed parts
/// (scheme, host, port, path, query) stay allocated. heaptrack shows it: in a 3-minute soak,
/// every leak left but one-time set-up came from there, one set per task. Nothing a caller
/// of URLSession does avoids it; a transport of Leash's own (not over FoundationNetworking)
/// does.
enum URLSessionLeak {
    /// Paths like the soak's (the leak grows with the URL's parts).
    private static let paths = [
        "/bytes/13964?chunked=1&chunk=4096", "/bytes/260903", "/upload", "/protected",
        "/ndjson?count=12&split=1", "/sse?count=3&retry=20", "/token",
    ]

    /// Heap bytes left per task by a plain URLSession against `server`: the median of three
    /// rounds of `count` tasks, after a first round that also holds the session's one-time
    /// growth (its caches and tables; about 2.5 times the steady figure); 0 where the heap
    /// cannot be read (not glibc).
    static func bytesPerTask(server: LoopbackServer, count: Int = 2000) -> Double {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let urls = paths.compactMap { URL(string: server.baseURL.absoluteString + $0) }
        func run(_ tasks: Int) {
            for index in 0..<tasks {
                let done = DispatchSemaphore(value: 0)
                // A GET everywhere: what the server answers does not matter, the task does.
                session.dataTask(with: urls[index % urls.count]) { _, _, _ in done.signal() }.resume()
                done.wait()
            }
        }
        run(count)
        let rounds = (0..<3).map { _ -> Double in
            let before = heap_info_in_use()
            run(count)
            let after = heap_info_in_use()
            return after > before ? Double(after - before) / Double(count) : 0
        }
        return rounds.sorted()[1]
    }
}
