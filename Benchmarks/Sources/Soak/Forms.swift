import Foundation
import Leash
import LeashDigest
import LoopbackServer
import Rx
import RxLeash

/// Starts one execution of a plan's form and reports its end to its tracker. What it
/// returns stops the execution early: `dispose` for the Rx forms and `cancel()` for the
/// callback form (after either, nothing may arrive), a cancel of the task for the `async`
/// form (whose end then comes as a thrown cancellation).
struct FormRunner {
    let client: Client
    let folder: URL

    /// How the soak stops an execution early.
    struct Stop {
        let stop: () -> Void
        /// Whether stopping ends it silently (a dispose), rather than with its own end.
        let isDispose: Bool
    }

    func start(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        switch plan.form {
        case .callback: return callback(plan, tracker)
        case .rx: return rx(plan, tracker, endpoint: bytesEndpoint(plan)) { $0 == pattern(plan.size) }
        case .async: return async(plan, tracker)
        case .upload: return upload(plan, tracker)
        case .download: return download(plan, tracker)
        case .lines: return lines(plan, tracker)
        case .sse: return serverSentEvents(plan, tracker)
        case .webSocket: return webSocket(plan, tracker)
        case .webSocketSession: return webSocketSession(plan, tracker)
        case .refresh:
            let endpoint = SoakEndpoint(plan, path: "/protected")
            return rx(plan, tracker, endpoint: endpoint) { $0 == Data(#"{"ok":true}"#.utf8) }
        }
    }

    // MARK: - Forms

    private func callback(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let request = client.execute(bytesEndpoint(plan), serializer: DataResponseSerializer()) { response in
            let began = tracker.isDisposed
            if let slow = plan.slowSubscriber { Thread.sleep(forTimeInterval: slow) }
            tracker.end(
                Self.outcome(response.value.map { $0 == pattern(plan.size) }, response.error), disposedWhenBegun: began)
        }
        // A cancelled callback execution calls nothing more (like a dispose).
        return Stop(stop: { request.cancel() }, isDispose: true)
    }

    private func async(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let client = self.client
        let endpoint = bytesEndpoint(plan)
        let task = Task {
            do {
                let data = try await client.execute(endpoint, serializer: DataResponseSerializer())
                tracker.end(.value(verified: data == pattern(plan.size)))
            } catch {
                tracker.end(Self.outcome(nil, error))
            }
        }
        return Stop(stop: { task.cancel() }, isDispose: false)
    }

    /// `client.rx.execute` of `endpoint`: one value, which `check` judges.
    private func rx(
        _ plan: ExecutionPlan, _ tracker: ExecutionTracker, endpoint: Endpoint, check: @escaping (Data) -> Bool
    ) -> Stop {
        let values = client.rx.execute(endpoint, serializer: DataResponseSerializer())
        return subscribe(values, plan, tracker) { $0.count == 1 && check($0[0]) }
    }

    private func upload(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let body = pattern(plan.size)
        var parameters: Any = body
        var file: URL?
        if plan.variant {
            let url = folder.appendingPathComponent("upload-\(plan.number).bin")
            if (try? body.write(to: url)) != nil {
                parameters = UploadFile(url)
                file = url
            }
        }
        let digest = SHA256.hexDigest(body)
        let endpoint = SoakEndpoint(plan, path: "/upload", method: .post, parameters: parameters)
        let values = client.rx.upload(endpoint, type: LoopbackServer.ReceivedUpload.self).compactMap(\.value)
        return subscribe(values, plan, tracker, cleanUp: { file.map { try? FileManager.default.removeItem(at: $0) } }) {
            $0.count == 1 && $0[0].bytes == plan.size && $0[0].sha256 == digest
        }
    }

    private func download(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let destination = folder.appendingPathComponent("download-\(plan.number).bin")
        let values = client.rx.download(SoakEndpoint(plan, path: "/bytes/\(plan.size)"), to: destination)
            .compactMap(\.value)
        return subscribe(values, plan, tracker, cleanUp: { try? FileManager.default.removeItem(at: destination) }) {
            $0.count == 1 && (try? Data(contentsOf: destination)) == pattern(plan.size)
        }
    }

    private func lines(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let count = 1 + plan.size % 40
        let endpoint = SoakEndpoint(plan, path: "/ndjson?count=\(count)&split=\(plan.variant ? 1 : 0)")
        return subscribe(client.rx.lines(endpoint, as: Line.self), plan, tracker) {
            $0.map(\.index) == Array(0..<count)
        }
    }

    private func serverSentEvents(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let endpoint = SoakEndpoint(plan, path: "/sse?count=3&retry=20")
        let events = client.rx.serverSentEvents(endpoint, reconnecting: true).take(5)
        return subscribe(events, plan, tracker) { $0.map(\.id) == ["1", "2", "3", "4", "5"] }
    }

    private func webSocket(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let options = Self.reconnectingOptions()
        let expected = "message \(plan.number)"
        let socket = LockedBox<WebSocket?>(nil)
        let events = client.rx.webSocket(SoakEndpoint(plan, path: "/ws/echo"), options: options)
            .do(onNext: { event in
                switch event {
                case .opened(let opened):
                    socket.withLock { $0 = opened }
                    opened.send(.text(expected))
                case .message:
                    socket.withLock { $0 }?.close(code: .normalClosure, reason: "done")
                default:
                    break
                }
            })
        return subscribe(events, plan, tracker, cleanUp: { socket.withLock { $0 = nil } }) { events in
            // Each connection sends the message once and closes after its echo, which the
            // policy never reconnects after: at most one echo, and nothing after it but its
            // close. (Ended by the server or the policy without an echo: nothing to check.)
            let echoes = events.compactMap { event -> String? in
                if case .message(.text(let text)) = event { return text }
                return nil
            }
            return echoes.isEmpty || echoes == [expected]
        }
    }

    /// A session to the echo route: the message is sent as soon as the session is made
    /// (kept until a connection opens), and the session closes once its echo arrives, or
    /// at once if the send fails. A send goes to one connection at most, so however the
    /// proxy cuts the connections, the echo comes once or not at all (a message lost with
    /// its connection leaves the session running: the soak leaves it after a while).
    private func webSocketSession(_ plan: ExecutionPlan, _ tracker: ExecutionTracker) -> Stop {
        let options = Self.reconnectingOptions(retriesFirstConnect: plan.variant)
        let expected = "message \(plan.number)"
        let session = client.webSocketSession(SoakEndpoint(plan, path: "/ws/echo"), options: options)
        let events = session.events.do(onNext: { event in
            if case .message = event { session.close(code: .normalClosure, reason: "done") }
        })
        let stop = subscribe(events, plan, tracker, cleanUp: { session.close() }) { events in
            let echoes = events.compactMap { event -> String? in
                if case .message(.text(let text)) = event { return text }
                return nil
            }
            return echoes.isEmpty || echoes == [expected]
        }
        _ = session.send(.text(expected)).subscribe(onError: { _ in session.close() })
        return stop
    }

    /// The WebSocket forms' options: reconnecting quickly, three times at most.
    private static func reconnectingOptions(retriesFirstConnect: Bool = false) -> WebSocketOptions {
        var options = WebSocketOptions()
        var reconnect = WebSocketReconnectPolicy()
        reconnect.initialDelay = 0.02
        reconnect.jitter = 0
        reconnect.maximumAttempts = 3
        reconnect.retriesFirstConnect = retriesFirstConnect
        options.reconnect = reconnect
        return options
    }

    // MARK: - Subscribing

    /// Subscribes to `values` as a slow, disposing subscriber would, and reports the end:
    /// on completion, `check` decides whether what arrived is what was sent.
    private func subscribe<Value>(
        _ values: Observable<Value>, _ plan: ExecutionPlan, _ tracker: ExecutionTracker,
        cleanUp: @escaping () -> Void = {}, check: @escaping ([Value]) -> Bool
    ) -> Stop {
        let collected = LockedBox<[Value]>([])
        // Who cleans up: the end, or the stop if it comes first. An end that began before
        // the dispose returned still checks (reads its download) after it: the stop must not
        // delete what the end is about to read.
        let settled = LockedBox<Settled>(.open)
        let subscription = values.subscribe(
            onNext: { value in
                tracker.event()
                if let slow = plan.slowSubscriber { Thread.sleep(forTimeInterval: slow) }
                collected.withLock { $0.append(value) }
            },
            onError: { error in
                let stopped = settled.withLock { $0.end() }
                let began = stopped || tracker.isDisposed
                if !stopped { cleanUp() }
                tracker.end(Self.outcome(nil, error), disposedWhenBegun: began)
            },
            onCompleted: {
                let stopped = settled.withLock { $0.end() }
                let began = stopped || tracker.isDisposed
                let values = collected.withLock { $0 }
                let matched = check(values)
                if !stopped { cleanUp() }
                if !matched && !began { tracker.note("received \(String("\(values)".prefix(300)))") }
                tracker.end(.value(verified: matched), disposedWhenBegun: began)
            })
        return Stop(
            stop: {
                subscription.dispose()
                if settled.withLock({ $0.stop() }) { cleanUp() }
            }, isDispose: true)
    }

    /// Whether an execution's end or its stop came first (see `subscribe`).
    private enum Settled {
        case open, ending, stopped

        /// The end came; true if the stop came first (so the end began after the dispose
        /// returned, and finds its files cleaned up).
        mutating func end() -> Bool {
            if self == .stopped { return true }
            self = .ending
            return false
        }

        /// The stop came; true if it came first (so it cleans up).
        mutating func stop() -> Bool {
            guard self == .open else { return false }
            self = .stopped
            return true
        }
    }

    private static func outcome(_ verified: Bool?, _ error: Error?) -> Outcome {
        if let verified { return .value(verified: verified) }
        if let error = error as? LeashError { return .failure(error) }
        return .untyped(error.map { "\(type(of: $0)): \($0)" } ?? "no value and no error")
    }

    private func bytesEndpoint(_ plan: ExecutionPlan) -> SoakEndpoint {
        SoakEndpoint(plan, path: "/bytes/\(plan.size)" + (plan.variant ? "?chunked=1&chunk=4096" : ""))
    }
}

/// The bytes `/bytes/n` sends.
func pattern(_ count: Int) -> Data {
    LoopbackServer.patternBytes(in: 0..<count)
}

/// One line of `/ndjson`.
struct Line: Decodable {
    let index: Int
}

/// An endpoint of the soak: tagged with its execution's number, with its plan's fault.
struct SoakEndpoint: Endpoint, @unchecked Sendable {
    // @unchecked: `parameters` is `Data` or an `UploadFile`, both values.
    let path: String
    let method: HTTPMethod
    let parameters: Any?
    let headers: [String: String]?

    init(_ plan: ExecutionPlan, path: String, method: HTTPMethod = .get, parameters: Any? = nil) {
        self.path = path
        self.method = method
        self.parameters = parameters
        var headers = [FaultProxy.tagHeader: "\(plan.number)"]
        if plan.fault != .none { headers[FaultProxy.faultHeader] = plan.fault.description }
        if parameters is Data { headers["Content-Type"] = "application/octet-stream" }
        self.headers = headers
    }
}
