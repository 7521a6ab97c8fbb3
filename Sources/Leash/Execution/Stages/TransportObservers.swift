import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives the transport's answer to one attempt's request: a response goes to the
/// success interceptors, a failure to the failure interceptors, and a completion without
/// a response is a failure. One object per request, instead of a closure per event and a
/// separate flag.
final class TransportObserver: ObserverType, @unchecked Sendable {
    // @unchecked: immutable but for `responded`, an atomic.
    typealias Element = TransportResponse

    private let run: AttemptRun
    private let request: URLRequest
    private let step: AttemptRun.Step
    /// 1 once the response arrived (a transport's completion alone is not one).
    private let responded = AtomicInt(0)

    init(run: AttemptRun, request: URLRequest, step: AttemptRun.Step) {
        self.run = run
        self.request = request
        self.step = step
    }

    func on(_ event: Event<TransportResponse>) {
        switch event {
        case .next(let response):
            responded.store(1)
            run.received(response, request, step)
        case .error(let error):
            run.failed(error, step)
        case .completed:
            if responded.load() == 0 {
                run.failed(LeashError.invalidResponse(reason: "the transport completed without a response"), step)
            }
        }
    }
}

/// Receives the events of one attempt's transfer: progress goes to the run's progress
/// (and resets the idle limit), the complete response to the success interceptors, a
/// failure to the failure interceptors.
final class TransferObserver: ObserverType, @unchecked Sendable {
    // @unchecked: immutable but for `responded`, an atomic.
    typealias Element = TransportEvent

    private let run: AttemptRun
    private let request: URLRequest
    private let step: AttemptRun.Step
    /// 1 once the response is complete.
    private let responded = AtomicInt(0)

    init(run: AttemptRun, request: URLRequest, step: AttemptRun.Step) {
        self.run = run
        self.request = request
        self.step = step
    }

    func on(_ event: Event<TransportEvent>) {
        switch event {
        case .next(.completed(let response)):
            responded.store(1)
            run.received(response, request, step)
        case .next(let progress):
            run.transferred(progress, step)
        case .error(let error):
            run.failed(error, step)
        case .completed:
            if responded.load() == 0 {
                run.failed(LeashError.invalidResponse(reason: "the transport completed without a response"), step)
            }
        }
    }
}
