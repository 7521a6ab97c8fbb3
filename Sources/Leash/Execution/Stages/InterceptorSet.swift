/// The interceptors of a manager sorted by kind, once, when the manager is built.
/// A class, so that executions share it by reference (six arrays would be six retains
/// per copy).
final class InterceptorSet: @unchecked Sendable {
    // @unchecked: immutable; the app's interceptor objects, which Leash calls from any thread.
    let execution: [ExecutionInterceptor]
    let failure: [FailureInterceptor]
    let success: [SuccessInterceptor]
    let completion: [CompletionInterceptor]
    let serialization: [SerializationInterceptor]
    let operators: [OperatorInterceptor]
    /// Not a stage: told of each execution's end (see `EndReport`).
    let endObservers: [ExecutionEndObserver]

    init(_ interceptors: [Interceptor]) {
        execution = interceptors.compactMap { $0 as? ExecutionInterceptor }
        failure = interceptors.compactMap { $0 as? FailureInterceptor }
        success = interceptors.compactMap { $0 as? SuccessInterceptor }
        completion = interceptors.compactMap { $0 as? CompletionInterceptor }
        serialization = interceptors.compactMap { $0 as? SerializationInterceptor }
        operators = interceptors.compactMap { $0 as? OperatorInterceptor }
        endObservers = interceptors.compactMap { $0 as? ExecutionEndObserver }
    }
}
