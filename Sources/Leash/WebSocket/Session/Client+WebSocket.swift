import Foundation
import Rx

extension Client {
    /// A WebSocket to `endpoint` as a cold stream of events: what `client.rx.webSocket`
    /// delivers (see there).
    package func webSocketStream(_ endpoint: Endpoint, options: WebSocketOptions = WebSocketOptions())
        -> Observable<WebSocketEvent>
    {
        let endpoint = Carried(endpoint)
        return Observable.create { [self] observer in
            let run = WebSocketRun(
                client: self, endpoint: endpoint.value, options: options,
                connector: options.connector ?? (manager.sender as? any WebSocketConnectorProviding)?
                    .webSocketConnector ?? WebSocketByteStreams.connector, observer: observer)
            run.connect()
            return run
        }
    }
}
