import Foundation
import LeashExamples
import RxLeash

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

            say("With client.rx, disposing the subscription does the same.")
            let subscription = client.rx.execute(API.slow, type: Data.self).subscribe()
            let arrivedAgain = server.waitUntil(timeout: 5) { $0.openConnectionCount > 0 }
            subscription.dispose()
            let closedAgain = server.waitUntil(timeout: 5) { $0.clientDisconnectCount > disconnectsBefore + 1 }
            check(arrivedAgain && closedAgain, "dispose() closed the connection too")
        }
    }
}
