// The Leash tour: `swift run leash-tour` starts the tour's API on a loopback server in this
// process and walks through Leash, narrating and checking each step. It exits 0 when
// everything behaved as narrated, 1 otherwise.
//
//     swift run leash-tour                        # against its own server
//     swift run leash-tour --base-url URL         # read-only steps against a real API
//                                                 # (JSONPlaceholder's shape, e.g.
//                                                 #  https://jsonplaceholder.typicode.com)
//     swift run leash-tour --serve                # only serve the tour's API, printing its URL
import Foundation
import LoopbackServer

let arguments = CommandLine.arguments

if arguments.contains("--serve") {
    let state = TourServerState()
    do {
        let server = try TourServer.start(state: state)
        // Unbuffered, so that a script reading the URL gets it at once.
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
        while true { sleep(3_600) }
    } catch {
        print("cannot start the tour's server: \(error)")
        exit(1)
    }
}

let api: TourAPI
do {
    if let index = arguments.firstIndex(of: "--base-url") {
        guard arguments.indices.contains(index + 1), let url = URL(string: arguments[index + 1]), url.host != nil
        else { throw TourError.badArguments("--base-url needs an absolute URL, such as https://example.com") }
        api = TourAPI(baseURL: url, server: nil, state: nil)
        print("Leash tour against \(url) (read-only steps; the rest need the tour's own server).")
    } else {
        let state = TourServerState()
        let server = try TourServer.start(state: state)
        api = TourAPI(baseURL: server.baseURL, server: server, state: state)
        print("Leash tour: the tour's API runs on \(server.baseURL), in this process.")
    }
} catch {
    print("leash-tour: \(error)")
    exit(2)
}

let tour = Tour(api: api)
if let client = tour.setup() {
    tour.executing(client)
    tour.reactive(client)
    tour.encoding(client)
    tour.creating(client)
    tour.decoding(client)
    tour.interceptors()
    tour.pipelines(client)
    tour.tokenRefresh()
    tour.cancellation(client)
    tour.transfers(client)
    tour.streams(client)
    tour.webSockets(client)
    tour.outbox()
}
tour.viewModelInVirtualTime()
exit(tour.finish() ? 0 : 1)
