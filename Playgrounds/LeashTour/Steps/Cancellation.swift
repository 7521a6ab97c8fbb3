import Foundation
import Leash

extension Tour {
    /// Cancelling an execution cancels its request: the server sees the connection close.
    func cancellation(_ client: Client) {
        step("Cancellation", needsLocalServer: true) {
            guard let server = api.server else { return }
            let disconnectsBefore = server.clientDisconnectCount
            say("GET /delay/5000 answers after five seconds; the request is cancelled long before.")
            let called = TourBox(false)
            let request = client.execute(API.slow) { (_: Response<Data>) in called.value = true }
            let arrived = server.waitUntil(timeout: 5) { $0.requestCount > 0 && $0.openConnectionCount > 0 }
            request.cancel()
            let closed = server.waitUntil(timeout: 5) { $0.clientDisconnectCount > disconnectsBefore }
            check(arrived && closed, "the server saw the request arrive, then the client close the connection")
            check(!called.value, "a cancelled execution calls nobody back")
        }
    }
}
