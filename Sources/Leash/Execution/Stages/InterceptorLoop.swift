import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a run of the interceptors of one kind ended, or a value one of them handed back on
/// the way (`complete(…, finish: false)`).
enum StageResult<T> {
    /// Every interceptor proceeded; `context` carries the request an execution interceptor
    /// adapted, if one did.
    case proceed(ExecutionContext)
    /// A value handed back early: the run goes on.
    case interim(Response<T>)
    /// An interceptor completed the stage with this outcome.
    case complete(Response<T>)
    /// An interceptor asked to run the execution again.
    case retry
}

/// What runs a stage's interceptors (`Attempt`, `SerializationRun`): whether the stage still
/// matters, and where its results go.
protocol StageHost: AnyObject, Sendable {
    /// What the host needs to know, with a result, of the stage it came from.
    associatedtype Stage
    /// The value type the stage's chains carry.
    associatedtype Output
    /// False once the attempt is over (disposed, retried, timed out): a late call back
    /// then runs nothing more.
    var isLive: Bool { get }
    /// An interim value or the end of `stage`'s run.
    func stage(_ stage: Stage, reported result: StageResult<Output>)
}

/// The one interceptor loop of the pipeline: runs `interceptors` one after another, each
/// starting when the one before it called its chain back (from any thread, at any time),
/// and reports every interim value and the run's end to its host.
///
/// Every stage runs its interceptors through this loop: execution, success, failure and
/// completion in `Attempt`, serialization in `SerializationRun`. A stage without
/// interceptors does not make one.
///
/// - `adapts`: whether `proceed(with:)` replaces the request for the interceptors after
///   (the execution stage); elsewhere it is `proceed()`.
/// - `cause`: the error the stage handles, if any, kept as a refused retry's `lastError`.
struct InterceptorLoop<Kind, Host: StageHost>: @unchecked Sendable {
    // @unchecked: the app's interceptor objects, which Leash calls from any thread, and
    // the stage's inputs, immutable values.
    let interceptors: [Kind]
    let host: Host
    let stage: Host.Stage
    var cause: Swift.Error? = nil
    var adapts = false
    let invoke: (Kind, InterceptorChain<Host.Output>) -> Void

    /// Runs the interceptors from `index` with `context`.
    func run(from index: Int = 0, context: ExecutionContext) {
        guard host.isLive else { return }
        guard index < interceptors.count else { return host.stage(stage, reported: .proceed(context)) }
        let loop = self
        let chain = InterceptorChain<Host.Output>(context: context, cause: cause) { decision in
            switch decision {
            case .proceed:
                loop.run(from: index + 1, context: context)
            case .proceedWith(let request):
                loop.run(from: index + 1, context: loop.adapts ? context.replacingRequest(request) : context)
            case .interim(let response):
                loop.report(.interim(response))
            case .complete(let response):
                loop.report(.complete(response))
            case .retry:
                loop.report(.retry)
            }
        }
        invoke(interceptors[index], chain)
    }

    private func report(_ result: StageResult<Host.Output>) {
        if host.isLive { host.stage(stage, reported: result) }
    }
}
