import Leash
import Rx

/// Keeps the last value of an execution and reports it to a `Single` when the execution
/// completes; reports the execution's error as it comes.
///
/// An execution that completes without a value (an operator interceptor filtered them
/// all out) fails with `LeashError.invalidResponse`, as `await client.execute` does.
final class LastValueObserver<Value, Output>: ObserverType, @unchecked Sendable {
    // @unchecked: `last` is only touched by `on`, and the execution's stream never calls
    // its observer concurrently (each call happens after the previous one returned); the
    // other properties are immutable.
    private let transform: @Sendable (Value, ResponseExtra) -> Output
    private let observer: @Sendable (SingleEvent<Output>) -> Void
    private var last: Output?

    init(
        transform: @escaping @Sendable (Value, ResponseExtra) -> Output,
        observer: @escaping @Sendable (SingleEvent<Output>) -> Void
    ) {
        self.transform = transform
        self.observer = observer
    }

    func on(_ event: Event<Response<Value>>) {
        switch event {
        case .next(.success(let value, let extra)):
            last = transform(value, ResponseExtra.of(extra))
        case .next(.failure(let error)):
            // Not emitted by `Client.responseStream` (it fails the stream instead); handled alike.
            last = nil
            observer(.failure(error))
        case .error(let error):
            last = nil
            observer(.failure(error))
        case .completed:
            // `last` is `Output?`: a value that is itself optional is kept as `.some(nil)`.
            let output = last
            last = nil
            if let output {
                observer(.success(output))
            } else {
                observer(.failure(LeashError.invalidResponse(reason: "the execution completed without a value")))
            }
        }
    }
}
