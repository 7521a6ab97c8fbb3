import Dispatch
import Foundation
import LeashTesting
import LeashTestSupport
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `DataRequest`, the callback forms' handle: `cancel()`, `suspend()` and `resume()` reach
/// the execution once attached, and what came before the attach is applied to it at once;
/// each reaches it once however often it is called; after the execution ended the handle
/// lets go of it and `cancel()` does nothing; and a cancelled execution calls back no more
/// (in virtual time over the stub transport).
final class DataRequestTests: VirtualTimeTestCase {
    /// An execution that records what its handle asks of it.
    private final class Control: ExecutionControl, @unchecked Sendable {
        // @unchecked: the log is thread-safe.
        let log: PipelineLog
        init(log: PipelineLog = PipelineLog()) { self.log = log }
        func cancel() { log.append("cancel") }
        func suspend() { log.append("suspend") }
        func resume() { log.append("resume") }
    }

    // MARK: The handle and what it controls

    func testCancelBeforeAttach_cancelsTheExecutionAsItIsAttached() {
        let request = DataRequest(URLRequest(url: executionTestURL))
        let control = Control()
        request.cancel()
        XCTAssertTrue(request.isCancelled)
        XCTAssertTrue(request.isDisposed)

        request.attach(control)
        request.cancel()

        XCTAssertEqual(control.log.all, ["cancel"])
    }

    func testSuspendBeforeAttach_suspendsTheExecutionAsItIsAttached_andResumeReachesIt() {
        let request = DataRequest(URLRequest(url: executionTestURL))
        let control = Control()
        request.suspend()
        XCTAssertTrue(request.isSuspended)

        request.attach(control)
        request.resume()

        XCTAssertEqual(control.log.all, ["suspend", "resume"])
        XCTAssertFalse(request.isSuspended)
    }

    func testAfterAttach_eachCallReachesTheExecutionOnce() {
        let request = DataRequest(URLRequest(url: executionTestURL))
        let control = Control()
        request.attach(control)

        request.resume()
        request.suspend()
        request.suspend()
        request.resume()
        request.resume()
        request.dispose()
        request.cancel()

        XCTAssertEqual(control.log.all, ["suspend", "resume", "cancel"], "resume without suspend does nothing")
        XCTAssertFalse(request.isSuspended)
    }

    func testAfterTheExecutionEnded_theHandleLetsGoOfIt_andCancelDoesNothing() {
        let request = DataRequest(URLRequest(url: executionTestURL))
        let log = PipelineLog()
        weak var weakControl: Control?
        do {
            let control = Control(log: log)
            weakControl = control
            request.attach(control)
            request.executionEnded()
            request.attach(Control(log: log))
        }

        XCTAssertNil(weakControl, "a finished execution must not be kept by its handle")
        request.cancel()
        request.suspend()
        XCTAssertEqual(log.all, [], "nothing reaches an ended execution, nor one attached after its end")
        XCTAssertEqual(request.urlRequest?.url, executionTestURL)
    }

    func testCancelRacingAttach_onManyThreads_cancelsEachExecutionExactlyOnce() {
        let count = 2_000
        let requests = (0..<count).map { _ in DataRequest(URLRequest(url: executionTestURL)) }
        let controls = (0..<count).map { _ in Control() }

        DispatchQueue.concurrentPerform(iterations: count * 2) { index in
            if index % 2 == 0 {
                requests[index / 2].attach(controls[index / 2])
            } else {
                requests[index / 2].cancel()
            }
        }

        XCTAssertEqual(controls.filter { $0.log.all != ["cancel"] }.count, 0, "cancelled twice, or never")
    }

    // MARK: Cancelling an execution through its handle

    func testDataRequestCancel_beforeTheStubbedDelay_noCallback() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        let calls = PipelineBox(0)

        let request = client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in calls.mutate { $0 += 1 } }
        scheduler.scheduleAt(3) { request.cancel() }
        scheduler.start()

        XCTAssertEqual(calls.value, 0)
        XCTAssertTrue(request.isCancelled)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testDataRequestCancel_whileAnInterceptorHoldsTheChain_laterProceedSendsNothing() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let held = PipelineHeldChains()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(interceptor: PipelineExecutionInterceptor { held.hold($0) })
        }
        let calls = PipelineBox(0)

        let request = client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in calls.mutate { $0 += 1 } }
        request.cancel()
        held.last?.proceed()
        scheduler.start()
        held.releaseAll()

        XCTAssertEqual(calls.value, 0)
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testDataRequestCancel_whileARetryIsBuilt_withAnOperatorInterceptor_sendsNothingMore() throws {
        // With an operator interceptor, an attempt runs inside the operator's subscription,
        // which the execution can dispose only once subscribing returned; an attempt whose
        // request is still being built as the cancel comes must stop all the same. (The
        // soak saw a token refresher's retry, built just after a dispose, reach the server.)
        transport.stub(path: "/v1/users/1", .text("busy", status: 503, delay: 2), .json(specAliceJSON))
        let handle = PipelineBox<DataRequest?>(nil)
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    // The retry's request is being built: the app cancels right then.
                    if chain.attempt == 2 { handle.value?.cancel() }
                    chain.proceed()
                }
            )
            .add(interceptor: RetryOnceOn503Operator())
        }
        let calls = PipelineBox(0)

        handle.value = client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in calls.mutate { $0 += 1 } }
        scheduler.start()

        XCTAssertEqual(transport.requests.count, 1, "the cancelled retry was sent")
        XCTAssertEqual(calls.value, 0)
    }

    func testDataRequestCancel_afterTheResponseWasQueued_theCallbackIsNotCalled() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        let queue = DispatchQueue(label: "held callbacks")
        let calls = PipelineBox(0)
        queue.suspend()

        // The stub answers at once: the response is on the (suspended) queue when we cancel.
        let request = client.execute(PipelineEndpoint(), queue: queue) { (_: Response<SpecUser>) in
            calls.mutate { $0 += 1 }
        }
        request.cancel()
        queue.resume()
        queue.sync {}

        XCTAssertEqual(calls.value, 0)
    }

    func testDataRequest_completedExecution_isReleasedEvenWhileTheHandleIsKept() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        let baseline = Resources.total
        var calls = 0

        let request = client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in calls += 1 }

        XCTAssertEqual(calls, 1)
        // The handle lets go of the finished execution.
        XCTAssertEqual(Resources.total, baseline)
        XCTAssertFalse(request.isCancelled, "finishing is not cancelling")
    }

    func testDataRequestCancel_realTime_beforeTheResponse_noCallbackAndReleased() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .json(specAliceJSON, delay: 0.05))
        let client = try makePipelineClient(transport)
        let calls = PipelineBox(0)
        let baseline = Resources.total

        do {
            let request = client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in
                calls.mutate { $0 += 1 }
            }
            waitForPipelineCondition("the request to reach the transport") { transport.requests.count == 1 }
            request.cancel()
        }

        // The stub's timer holds the cancelled execution until it fires: once everything
        // is released, the answer has come and gone without a callback.
        assertResourcesReturn(to: baseline)
        XCTAssertEqual(calls.value, 0)
    }

}
