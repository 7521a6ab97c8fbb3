// PLACEHOLDER until helper/parsers lands.
public struct ServerSentEvent: Sendable, Hashable {
    public var id: String?
    public var event: String
    public var data: String
    public var retry: Int?
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}
