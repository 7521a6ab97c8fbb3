import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What URLSession measured about one request (`URLSessionTaskMetrics`, in Leash's own
/// `Sendable` values): when each phase started and ended, the bytes sent and received,
/// and whether a connection was reused.
///
/// Only where URLSession collects metrics: Apple platforms. FoundationNetworking (Linux)
/// never reports any, so there `ResponseExtra.metrics` is always `nil`.
public struct TransportMetrics: Sendable, Equatable {
    /// From the task's creation to its end.
    public let taskInterval: DateInterval
    /// How many redirects URLSession followed itself (0 under Leash, which follows them:
    /// see `RedirectPolicy`).
    public let redirectCount: Int
    /// One per request URLSession made for the task, in order (a request answered from
    /// URLSession's cache is one too).
    public let transactions: [Transaction]

    /// One request and its response, as URLSession measured them. Dates are `nil` for
    /// phases that did not happen (no DNS lookup on a reused connection, say).
    public struct Transaction: Sendable, Equatable {
        /// When the task began fetching the resource (from the network or a cache).
        public let fetchStart: Date?
        /// When the DNS lookup started and ended.
        public let domainLookupStart: Date?
        /// When the DNS lookup ended.
        public let domainLookupEnd: Date?
        /// When the connection started and ended (including TLS).
        public let connectStart: Date?
        /// When the connection was established.
        public let connectEnd: Date?
        /// When the TLS handshake started.
        public let secureConnectionStart: Date?
        /// When the TLS handshake ended.
        public let secureConnectionEnd: Date?
        /// When the first byte of the request was sent.
        public let requestStart: Date?
        /// When the first byte of the response arrived.
        public let responseStart: Date?
        /// When the last byte of the response arrived.
        public let responseEnd: Date?
        /// The protocol, as ALPN names it (`"http/1.1"`, `"h2"`, `"h3"`).
        public let networkProtocol: String?
        /// Whether an existing connection carried the request.
        public let isReusedConnection: Bool
        /// Whether the response came from URLSession's cache rather than the network.
        public let isFromCache: Bool
        /// Bytes of request headers sent.
        public let requestHeaderBytes: Int64
        /// Bytes of request body sent.
        public let requestBodyBytes: Int64
        /// Bytes of response headers received.
        public let responseHeaderBytes: Int64
        /// Bytes of response body received (before decompression).
        public let responseBodyBytes: Int64
    }
}

extension TransportMetrics {
    /// Leash's values of what URLSession measured.
    init(_ metrics: URLSessionTaskMetrics) {
        taskInterval = metrics.taskInterval
        redirectCount = metrics.redirectCount
        transactions = metrics.transactionMetrics.map { transaction in
            Transaction(
                fetchStart: transaction.fetchStartDate, domainLookupStart: transaction.domainLookupStartDate,
                domainLookupEnd: transaction.domainLookupEndDate, connectStart: transaction.connectStartDate,
                connectEnd: transaction.connectEndDate, secureConnectionStart: transaction.secureConnectionStartDate,
                secureConnectionEnd: transaction.secureConnectionEndDate, requestStart: transaction.requestStartDate,
                responseStart: transaction.responseStartDate, responseEnd: transaction.responseEndDate,
                networkProtocol: transaction.networkProtocolName, isReusedConnection: transaction.isReusedConnection,
                isFromCache: transaction.resourceFetchType == .localCache,
                requestHeaderBytes: transaction.countOfRequestHeaderBytesSent,
                requestBodyBytes: transaction.countOfRequestBodyBytesSent,
                responseHeaderBytes: transaction.countOfResponseHeaderBytesReceived,
                responseBodyBytes: transaction.countOfResponseBodyBytesReceived)
        }
    }
}
