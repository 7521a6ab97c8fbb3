import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns an endpoint into what the store keeps of it, at enqueue: the method, the path with
/// its query, the body's bytes and content type, and the endpoint's own headers.
///
/// The endpoint is encoded now, with the client's encoding (the manager's encoders, or a
/// `Client` subclass's `urlRequest(for:)`), so that an encoding error is thrown by `enqueue`
/// and a stored item never depends on code that changed since. The manager's headers and
/// the credential are left out: they are added when the item is sent, so a refreshed token
/// or a new default header applies to items stored before it.
enum OutboxIntent {
    static func record(
        for endpoint: Endpoint, lane: String, client: Client, options: OutboxOptions, enqueuedAt: Date
    ) throws -> OutboxRecord {
        let request = try client.urlRequest(for: endpoint)
        let body = try self.body(of: endpoint, request: request, limit: options.maximumBodySize)
        var headers = endpoint.headers ?? [:]
        for (name, value) in headers
        where name.isEmpty || "\(name)\(value)".unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" })
            || name.contains(":")
        {
            throw LeashError.encoding(
                reason: "the header \"\(name)\" cannot be sent: a name must be a token and a field one line",
                underlying: nil)
        }
        if let contentType = request.value(forHTTPHeaderField: "Content-Type") {
            headers = headers.filter { $0.key.lowercased() != "content-type" }
            headers["Content-Type"] = contentType
        }
        let key = "\"" + UUID().uuidString.lowercased() + "\""
        return OutboxRecord(
            id: UUID(), idempotencyKey: key, lane: lane, method: endpoint.method,
            path: try path(of: request, manager: client.manager), headers: headers, body: body,
            enqueuedAt: enqueuedAt, attempts: 0, countedAttempts: 0, phase: .pending, notBefore: nil, error: nil)
    }

    /// The request's URL after the manager's base URL, so that the base can change between
    /// launches (a staging server, a new API host) and apply to stored items.
    private static func path(of request: URLRequest, manager: Manager) throws -> String {
        let sent = request.url?.absoluteString ?? ""
        guard let prefix = manager.baseURLPrefix, sent.hasPrefix(prefix) else {
            throw LeashError.invalidURL(
                url: sent,
                reason: "the outbox stores paths relative to the manager's base URL, which must have no query or "
                    + "fragment, and the request must stay under it")
        }
        let path = String(sent.dropFirst(prefix.count))
        return path.isEmpty ? "/" : path
    }

    /// The whole body: in memory already, or read now from the endpoint's file or form.
    private static func body(of endpoint: Endpoint, request: URLRequest, limit: Int) throws -> Data? {
        var body = request.httpBody
        if body == nil {
            switch endpoint.parameters {
            case let file as UploadFile:
                try refuse(size: FileInspection.sizeOfReadableFile(at: file.url), limit: limit)
                do {
                    body = try Data(contentsOf: file.url)
                } catch {
                    throw LeashError.fileAccess(
                        reason: "the file to enqueue cannot be read", url: file.url, underlying: error)
                }
            case let form as MultipartFormData:
                let length = try form.contentLength()
                try refuse(size: length, limit: limit)
                body = try form.encoded(expectedLength: length)
            default:
                break
            }
        }
        if let body { try refuse(size: UInt64(body.count), limit: limit) }
        return body
    }

    private static func refuse(size: UInt64, limit: Int) throws {
        guard size > UInt64(max(0, limit)) else { return }
        throw LeashError.encoding(
            reason: "the body is \(size) bytes, more than the outbox keeps (OutboxOptions.maximumBodySize, "
                + "\(limit) bytes); upload large files with client.upload and enqueue a reference to them",
            underlying: nil)
    }
}
