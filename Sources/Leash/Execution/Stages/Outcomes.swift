import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// How outcomes are marked and wrapped as they pass the stages.

extension Response {
    /// A response an interceptor produced, marked as such (values from the network stay
    /// marked as network values when an interceptor passes them on).
    func fromInterceptor() -> Response<Value> {
        switch self {
        case .success(let value, let extra):
            if extra is ResponseExtra { return self }
            return .success(value: value, extra: ResponseExtra(source: .interceptor, interceptorExtra: extra))
        case .failure:
            return self
        }
    }

    init(result: Result<Value, Swift.Error>, extra: Any?) {
        switch result {
        case .success(let value): self = .success(value: value, extra: extra)
        case .failure(let error): self = .failure(error)
        }
    }
}

extension ResponseExtra {
    /// The details of a value: `extra` itself if the pipeline made it, else the value of
    /// an interceptor that passed `extra` of its own.
    package static func of(_ extra: Any?) -> ResponseExtra {
        extra as? ResponseExtra ?? ResponseExtra(source: .interceptor, interceptorExtra: extra)
    }
}

extension LeashError {
    /// `error` as a `LeashError`, wrapping foreign errors from request building as
    /// encoding errors.
    static func wrapping(_ error: Swift.Error) -> Swift.Error {
        if error is LeashError { return error }
        return LeashError.encoding(reason: "the request could not be built", underlying: error)
    }
}
