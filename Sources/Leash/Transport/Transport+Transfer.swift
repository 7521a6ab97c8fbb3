import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Transport {
    /// `transfer` for a transport that implements only `send`: the request's body is
    /// read into memory (`httpBody`) from a file if it comes from one, the response
    /// arrives whole, and progress is reported once, at the end. A file destination gets
    /// the body written when the response is complete, resuming with `Range` as the
    /// contract says.
    ///
    /// Implement `transfer` in the transport itself to stream bodies and report progress
    /// as bytes move (`URLSessionTransport` and `StubTransport` do).
    public func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        let transport = self
        return Observable.create { observer in
            var urlRequest = request.urlRequest
            if case .file(let url) = request.body {
                do {
                    urlRequest.httpBody = try Data(contentsOf: url)
                } catch {
                    observer.onError(
                        LeashError.fileAccess(reason: "the upload's file cannot be read", url: url, underlying: error))
                    return Disposables.create()
                }
            }
            let requestedOffset = TransferBodyPlan.requestRange(for: request.destination, in: &urlRequest)
            let uploadSize = Int64(urlRequest.httpBody?.count ?? 0)
            let carried = Carried(urlRequest)
            return transport.send(carried.value).subscribe(
                onNext: { response in
                    if request.reportsProgress, uploadSize > 0 {
                        observer.onNext(
                            .uploadProgress(TransferProgress(completedBytes: uploadSize, expectedBytes: uploadSize)))
                    }
                    observer.onNext(.response(response.httpResponse))
                    do {
                        let complete = try TransferBodyPlan.store(
                            response, in: request.destination, requestedOffset: requestedOffset)
                        if request.reportsProgress {
                            observer.onNext(.downloadProgress(complete.progress))
                        }
                        if let chunk = complete.chunk { observer.onNext(.body(chunk)) }
                        observer.onNext(.completed(complete.response))
                    } catch {
                        observer.onError(error)
                    }
                },
                onError: { observer.onError($0) },
                onCompleted: { observer.onCompleted() })
        }
    }
}

/// The rules of `TransportRequest.Destination` that every transport shares. (`package`:
/// `StubTransport`, in `LeashTesting`, scripts transfers by the same rules.)
package enum TransferBodyPlan {
    /// Asks for the rest of a partly downloaded file; returns the offset asked from (0 for
    /// everything). A request that already asks for the bytes from where the file ends
    /// (the pipeline adds the header itself, so that events and interceptors see it) is
    /// left as it is; one that names another range of its own is not resumed.
    package static func requestRange(for destination: TransportRequest.Destination, in request: inout URLRequest)
        -> Int64
    {
        guard case .file(let url) = destination else { return 0 }
        let offset = BodyFileWriter.existingSize(of: url)
        if let range = request.value(forHTTPHeaderField: "Range") {
            return offset > 0 && range == BodyFileWriter.rangeHeader(from: offset) ? offset : 0
        }
        guard offset > 0 else { return 0 }
        request.setValue(BodyFileWriter.rangeHeader(from: offset), forHTTPHeaderField: "Range")
        return offset
    }

    /// Whether a response with `status` has its body written to a file destination
    /// (successes only: an error page must not overwrite or extend a partial download).
    package static func writesToFile(status: Int) -> Bool {
        (200..<300).contains(status)
    }

    /// Whether a response with `status` has its body handed on in chunks to a stream
    /// destination (successes only: an error page comes whole, for the error).
    package static func streamsBody(status: Int) -> Bool {
        (200..<300).contains(status)
    }

    /// The most bytes of an error page kept for a stream destination: a server that
    /// answers a stream with an endless error body must not fill memory. The rest is
    /// dropped and the connection closed.
    static let errorBodyLimit = 1 << 20

    /// `response`, received whole in memory, stored as `destination` says, with the
    /// progress it ends at, and for a stream the chunk to hand on (the whole body).
    static func store(
        _ response: TransportResponse, in destination: TransportRequest.Destination, requestedOffset: Int64
    ) throws -> (response: TransportResponse, progress: TransferProgress, chunk: Data?) {
        let received = Int64(response.data.count)
        let progress = TransferProgress(completedBytes: received, expectedBytes: received)
        if destination == .stream, streamsBody(status: response.httpResponse.statusCode) {
            let streamed = TransportResponse(httpResponse: response.httpResponse, data: Data())
            return (streamed, progress, response.data.isEmpty ? nil : response.data)
        }
        guard case .file(let url) = destination, writesToFile(status: response.httpResponse.statusCode) else {
            return (response, progress, nil)
        }
        let writer = try BodyFileWriter(url: url, head: response.httpResponse, requestedOffset: requestedOffset)
        do {
            try writer.write(response.data)
            try writer.close()
        } catch {
            writer.abandon()
            throw error
        }
        let total = writer.startOffset + received
        return (
            TransportResponse(httpResponse: response.httpResponse, file: url),
            TransferProgress(completedBytes: total, expectedBytes: total), nil
        )
    }
}
