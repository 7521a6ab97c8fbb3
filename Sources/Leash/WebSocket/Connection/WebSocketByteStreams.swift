import Foundation
import Rx

/// The platform's byte streams (placeholder until the socket streams land).
package enum WebSocketByteStreams {
    /// The platform's connector.
    package static var platform: any WebSocketByteStreamConnector { Unavailable() }

    private struct Unavailable: WebSocketByteStreamConnector {
        func connect(
            to address: WebSocketAddress,
            _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
        ) -> Disposable {
            DispatchQueue.global().async { completion(.failure(URLError(.unsupportedURL))) }
            return Disposables.create()
        }
    }
}
