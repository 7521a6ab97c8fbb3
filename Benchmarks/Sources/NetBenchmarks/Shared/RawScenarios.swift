import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The floor: what an app would write by hand with URLSession and JSONDecoder, with the
/// session configured as Leash's transport configures its own (URLSession's defaults, no URLCache on Linux:
/// see Docs/URLSession-on-Linux.md) and the same credential header, so both send the same request.
final class RawClient: @unchecked Sendable {
    // @unchecked: immutable; URLSession is thread-safe, and JSONDecoder decodes
    // concurrently (it keeps no state between calls).
    let session: URLSession
    let url: URL
    let decoder = JSONDecoder()

    init(baseURL: URL) {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        url = baseURL.appendingPathComponent("json")
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// `GET /json`, decoded; `nil` for a transport error, a status outside 2xx or a body
    /// that does not decode.
    func get(completion: @escaping @Sendable (Sample?) -> Void) {
        var request = URLRequest(url: url)
        request.setValue(benchmarkToken, forHTTPHeaderField: "Authorization")
        let decoder = self.decoder
        session.dataTask(with: request) { data, response, error in
            guard error == nil, let data, let status = (response as? HTTPURLResponse)?.statusCode,
                (200..<300).contains(status)
            else {
                completion(nil)
                return
            }
            completion(try? decoder.decode(Sample.self, from: data))
        }.resume()
    }
}

extension RawClient {
    /// `GET /json` with `try await session.data(for:)`, decoded; `nil` as in `get`.
    func getAsync() async -> Sample? {
        var request = URLRequest(url: url)
        request.setValue(benchmarkToken, forHTTPHeaderField: "Authorization")
        guard let (data, response) = try? await session.data(for: request),
            let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status)
        else { return nil }
        return try? decoder.decode(Sample.self, from: data)
    }
}

enum RawScenarios {
    /// `total` requests through `getAsync()`: `inFlight` tasks, each awaiting its share.
    static func async(_ client: RawClient, total: Int, inFlight: Int) -> Tally {
        asyncLanes(total: total, inFlight: inFlight) { await client.getAsync() }
    }

    /// `total` requests through a transport's `send` (URLSession's or Leash's own), decoded
    /// in the subscriber.
    static func transport(_ transport: any Transport, url: URL, total: Int, inFlight: Int) -> Tally {
        let decoder = JSONDecoder()
        return closedLoop(total: total, inFlight: inFlight) { completion in
            var request = URLRequest(url: url)
            request.setValue(benchmarkToken, forHTTPHeaderField: "Authorization")
            _ = transport.send(request).subscribe(
                onNext: { response in completion(try? decoder.decode(Sample.self, from: response.data)) },
                onError: { _ in completion(nil) })
        }
    }

    /// `total` requests, `inFlight` at a time.
    static func callbacks(_ client: RawClient, total: Int, inFlight: Int) -> Tally {
        closedLoop(total: total, inFlight: inFlight) { completion in client.get(completion: completion) }
    }
}
