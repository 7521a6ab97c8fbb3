import Foundation
import Rx

/// The platform's byte streams.
package enum WebSocketByteStreams {
    /// The platform's connector: plain TCP for now (TLS lands with the platform streams).
    package static var platform: any WebSocketByteStreamConnector { TCPByteStreamConnector() }
}
