// A stand-in of Network.framework's connection for the Linux build that takes Apple platforms'
// branches (see NetworkStandInScript.swift); a real Apple build uses the framework's own.
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    import Dispatch
    import Foundation
    import Rx

    /// A two-way connection to an endpoint: here, one that does no networking. Its calls are
    /// recorded and its events (states, viability, the completions of receives and sends)
    /// come from the test's script (`NetworkStandInScript.swift`), delivered on the queue
    /// given to `start(queue:)` as Network.framework delivers them.
    /// https://developer.apple.com/documentation/network/nwconnection (a final class). Sendable
    /// here: its handlers are `@Sendable` in the SDK, and it is called from any thread.
    final class NWConnection: Sendable {
        /// What changes: set by the connector's calls and by the script.
        struct Shared {
            /// The state last entered.
            var state = State.setup
            /// See `stateUpdateHandler`.
            var stateUpdateHandler: (@Sendable (NWConnection.State) -> Void)?
            /// See `viabilityUpdateHandler`.
            var viabilityUpdateHandler: (@Sendable (Bool) -> Void)?
            /// The queue given to `start(queue:)`.
            var queue: DispatchQueue?
            /// The receives made and not yet taken by the script.
            var receives: [ScriptedReceive] = []
            /// The sends made and not yet taken by the script.
            var sends: [ScriptedSend] = []
            /// How many receives were made in all.
            var receiveCount = 0
            /// How many times `cancel()` was called.
            var cancelCount = 0
        }

        /// The remote endpoint it was made for.
        /// https://developer.apple.com/documentation/network/nwconnection/endpoint
        let endpoint: NWEndpoint
        /// The parameters it was made with.
        /// https://developer.apple.com/documentation/network/nwconnection/parameters
        let parameters: NWParameters
        /// See `Shared`.
        let shared = LockedState(Shared())
        /// Signalled for each receive made, for `nextReceive(within:)`.
        let receiveMade = DispatchSemaphore(value: 0)
        /// Signalled for each send made, for `nextSend(within:)`.
        let sendMade = DispatchSemaphore(value: 0)

        /// A connection to `host` and `port`; the installed script is told of it.
        /// https://developer.apple.com/documentation/network/nwconnection/init(host:port:using:)
        init(host: NWEndpoint.Host, port: NWEndpoint.Port, using parameters: NWParameters) {
            endpoint = .hostPort(host: host, port: port)
            self.parameters = parameters
            NetworkStandInScript.connectionMade(self)
        }

        /// Told of each state the connection enters.
        /// https://developer.apple.com/documentation/network/nwconnection/stateupdatehandler
        var stateUpdateHandler: (@Sendable (NWConnection.State) -> Void)? {
            get { shared.withLock { $0.stateUpdateHandler } }
            set { shared.withLock { $0.stateUpdateHandler = newValue } }
        }

        /// Told when the connection's path becomes usable, or stops being usable.
        /// https://developer.apple.com/documentation/network/nwconnection/viabilityupdatehandler
        var viabilityUpdateHandler: (@Sendable (Bool) -> Void)? {
            get { shared.withLock { $0.viabilityUpdateHandler } }
            set { shared.withLock { $0.viabilityUpdateHandler = newValue } }
        }

        /// Starts connecting; every event is delivered on `queue`. Here the script decides
        /// what follows.
        /// https://developer.apple.com/documentation/network/nwconnection/start(queue:)
        func start(queue: DispatchQueue) {
            shared.withLock { $0.queue = queue }
        }

        /// Cancels the connection: it enters `.cancelled` (once), delivered to the state
        /// handler. Outstanding receives and sends wait for the script, which completes them
        /// as the framework would (with `ECANCELED`).
        /// https://developer.apple.com/documentation/network/nwconnection/cancel()
        func cancel() {
            let isFirst = shared.withLock { shared -> Bool in
                shared.cancelCount += 1
                guard shared.state != .cancelled else { return false }
                shared.state = .cancelled
                return true
            }
            if isFirst { deliver(.cancelled) }
        }

        /// Reads between `minimumIncompleteLength` and `maximumLength` bytes: `completion` is
        /// called once, with what the script gives.
        /// https://developer.apple.com/documentation/network/nwconnection/receive(minimumincompletelength:maximumlength:completion:)
        func receive(
            minimumIncompleteLength: Int, maximumLength: Int,
            completion: @escaping @Sendable (Data?, NWConnection.ContentContext?, Bool, NWError?) -> Void
        ) {
            shared.withLock {
                let receive = ScriptedReceive(
                    queue: $0.queue, minimumIncompleteLength: minimumIncompleteLength, maximumLength: maximumLength,
                    completion: completion)
                $0.receives.append(receive)
                $0.receiveCount += 1
            }
            receiveMade.signal()
        }

        /// Sends `content`: `completion` is called once the script says it was processed.
        /// https://developer.apple.com/documentation/network/nwconnection/send(content:contentcontext:iscomplete:completion:)-5ecuz
        func send(
            content: Data?, contentContext: NWConnection.ContentContext = .defaultMessage, isComplete: Bool = true,
            completion: NWConnection.SendCompletion
        ) {
            shared.withLock {
                let send = ScriptedSend(
                    queue: $0.queue, content: content, contentContext: contentContext, isComplete: isComplete,
                    completion: completion)
                $0.sends.append(send)
            }
            sendMade.signal()
        }

        /// Delivers `state` to the state handler on the connection's queue, as the framework
        /// does (the handler is read then: one removed meanwhile is not called).
        func deliver(_ state: State) {
            onQueue { [self] in stateUpdateHandler?(state) }
        }

        /// Runs `body` on the queue given to `start(queue:)`; a connection never started
        /// delivers nothing.
        func onQueue(_ body: @escaping @Sendable () -> Void) {
            shared.withLock { $0.queue }?.async(execute: body)
        }
    }
#endif
