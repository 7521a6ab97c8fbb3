import Dispatch
import Foundation
import Leash
import LeashTesting
import Rx
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retry()` re-runs the execution from the start, within the manager's bound.
final class PipelineRetryTests: VirtualTimeTestCase {
    /// Refreshes the token on a 401 (taking `refreshTicks` of virtual time) and retries.
    private func refreshingInterceptor(_ authenticator: SpecAuthenticator, refreshTicks: Int = 2)
        -> PipelineCompletionInterceptor
    {
        let scheduler = self.scheduler!
        return PipelineCompletionInterceptor { chain, response in
            guard (response.error as? LeashError)?.isUnauthorized == true else { return chain.proceed() }
            PipelineCallBack.virtual(scheduler, ticks: refreshTicks).run {
                authenticator.accessToken = "new"
                do { try chain.retry() } catch { chain.complete(with: error) }
            }
        }
    }

    func testRetry_rebuildsTheRequest_soTheRefreshedTokenIsSent() throws {
        let authenticator = SpecAuthenticator(token: "old")
        transport.stub(path: "/v1/users/1", .status(401), .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.authenticator(authenticator).add(interceptor: refreshingInterceptor(authenticator))
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "responseReceived(401, 1) @ 200",
                "retrying(2) @ 202", "requestPrepared(2) @ 202", "requestSent(2) @ 202",
                "downloadProgress(23/23) @ 202", "responseReceived(200, 2) @ 202", "value(\(specAlice), network) @ 202",
                "completed @ 202",
            ])
        XCTAssertEqual(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer old", "Bearer new"])
    }

    func testRetry_secondAttempt_runsEveryInterceptorKindAgainWithAttempt2() throws {
        let authenticator = SpecAuthenticator(token: "old")
        transport.stub(path: "/v1/users/1", .status(401), .json(specAliceJSON))
        let attempts = PipelineLog()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.authenticator(authenticator)
                .add(
                    interceptor: PipelineExecutionInterceptor { chain in
                        attempts.append("execution \(chain.attempt)")
                        chain.proceed()
                    }
                )
                .add(interceptor: refreshingInterceptor(authenticator))
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(attempts.all, ["execution 1", "execution 2"])
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specAlice])
    }

    func testRetry_pastMaximumRetryCount_throwsRetryLimitExceededWithLastError() throws {
        transport.stub(path: "/v1/users/1", .text("busy", status: 503))
        let thrown = PipelineBox<[Swift.Error]>([])
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(2)
                .add(
                    interceptor: PipelineCompletionInterceptor { chain, _ in
                        do {
                            try chain.retry()
                        } catch {
                            thrown.mutate { $0.append(error) }
                            chain.complete(with: error)
                        }
                    })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(transport.requests.count, 3, "the first attempt and two retries")
        XCTAssertEqual(thrown.value.count, 1)
        guard case .retryLimitExceeded(let attempts, let lastError)? = thrown.value.first as? LeashError else {
            return XCTFail("expected .retryLimitExceeded, got \(thrown.value)")
        }
        XCTAssertEqual(attempts, 3)
        XCTAssertEqual((lastError as? LeashError)?.statusCode, 503, "the cause is kept")
        XCTAssertTrue(thrown.value[0].localizedDescription.isEmpty == false)
        XCTAssertTrue("\(thrown.value[0])".contains("Gave up after 3 attempts"), "\(thrown.value[0])")
        XCTAssertEqual(
            pipelineTimeline(observer).filter { $0.hasPrefix("retrying") }, ["retrying(2) @ 200", "retrying(3) @ 200"])
        guard case .retryLimitExceeded? = pipelineError(observer) as? LeashError else {
            return XCTFail("expected the execution to end with .retryLimitExceeded")
        }
    }

    func testRetry_maximumRetryCountZero_throwsOnTheFirstAttempt() throws {
        transport.stub(path: "/v1/users/1", .status(500))
        let thrown = PipelineBox<Swift.Error?>(nil)
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(0)
                .add(
                    interceptor: PipelineCompletionInterceptor { chain, _ in
                        do { try chain.retry() } catch {
                            thrown.value = error
                            chain.proceed()
                        }
                    })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        guard case .retryLimitExceeded(let attempts, _)? = thrown.value as? LeashError else {
            return XCTFail("expected .retryLimitExceeded, got \(String(describing: thrown.value))")
        }
        XCTAssertEqual(attempts, 1)
        XCTAssertEqual(transport.requests.count, 1)
        // The interceptor proceeded after the refusal: the execution ends with the 500.
        XCTAssertEqual((pipelineError(observer) as? LeashError)?.statusCode, 500)
    }

    func testCanRetry_saysWhatRetryWillDo_atEveryAttempt_inAChain() throws {
        transport.stub(path: "/v1/users/1", .status(500))
        let seen = PipelineLog()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(2)
                .add(
                    interceptor: PipelineCompletionInterceptor { chain, _ in
                        // The manager's one check, as the chain and the manager report it.
                        let allowed = chain.client.manager.allowsRetry(afterAttempt: chain.attempt)
                        seen.append("attempt \(chain.attempt): \(chain.canRetry) \(allowed)")
                        do { try chain.retry() } catch {
                            seen.append("refused at \(chain.attempt)")
                            chain.proceed()
                        }
                    })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            seen.all, ["attempt 1: true true", "attempt 2: true true", "attempt 3: false false", "refused at 3"])
        XCTAssertEqual((pipelineError(observer) as? LeashError)?.statusCode, 500)
    }

    func testRetry_fromAnExecutionInterceptorForever_isBoundedThenProceeds() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let attempts = PipelineLog()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(3)
                .add(
                    interceptor: PipelineExecutionInterceptor { chain in
                        attempts.append("\(chain.attempt)")
                        do { try chain.retry() } catch { chain.proceed() }
                    })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(attempts.all, ["1", "2", "3", "4"])
        XCTAssertEqual(transport.requests.count, 1, "only the last attempt reached the network")
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specAlice])
    }

    func testRetry_fromTheSerializationStage_rerunsTheExecution() throws {
        transport.stub(path: "/v1/users/1", .json(#"{"id":"garbage"}"#), .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(
                interceptor: PipelineUserSerializationInterceptor { chain, _, result, _ in
                    guard case .failure = result else { return chain.proceed() }
                    do { try chain.retry() } catch { chain.proceed() }
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specAlice])
    }

    func testRetriesFromEveryStage_shareOneLimit_andEachAttemptRunsEveryStageAgain() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let seen = PipelineLog()
        let thrown = PipelineBox<Swift.Error?>(nil)
        /// Retries at `stage` on attempt `attempt`, else proceeds.
        func retry(_ chain: InterceptorChain<some Any>, at stage: String, on attempt: Int) {
            seen.append("\(stage) \(chain.attempt)")
            guard chain.attempt == attempt else { return chain.proceed() }
            do {
                try chain.retry()
            } catch {
                thrown.value = error
                chain.complete(with: error)
            }
        }
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(3)
                .add(interceptor: PipelineExecutionInterceptor { retry($0, at: "execution", on: 1) })
                .add(interceptor: PipelineSuccessInterceptor { chain, _, _ in retry(chain, at: "success", on: 2) })
                .add(interceptor: PipelineCompletionInterceptor { chain, _ in retry(chain, at: "completion", on: 3) })
                .add(
                    interceptor: PipelineUserSerializationInterceptor { chain, _, _, _ in
                        retry(chain, at: "serialization", on: 4)
                    })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            seen.all,
            [
                "execution 1",
                "execution 2", "success 2",
                "execution 3", "success 3", "completion 3",
                "execution 4", "success 4", "completion 4", "serialization 4",
            ])
        XCTAssertEqual(transport.requests.count, 3, "attempt 1 was retried before it was sent")
        guard case .retryLimitExceeded(let attempts, _)? = thrown.value as? LeashError else {
            return XCTFail("the fourth retry is refused, got \(String(describing: thrown.value))")
        }
        XCTAssertEqual(attempts, 4)
        XCTAssertEqual(
            pipelineTimeline(observer).filter { $0.hasPrefix("retrying") },
            ["retrying(2) @ 200", "retrying(3) @ 200", "retrying(4) @ 200"])
        guard case .retryLimitExceeded? = pipelineError(observer) as? LeashError else {
            return XCTFail("the execution ends with the refusal")
        }
    }

    // MARK: Operator interceptors

    func testOperatorInterceptor_retriesOnceOn503_thenSucceeds() throws {
        transport.stub(path: "/v1/users/1", .text("busy", status: 503), .json(specAliceJSON))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(interceptor: RetryOnceOn503Operator())
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertEqual(
            pipelineTimeline(observer).filter { !$0.hasPrefix("request") },
            [
                "downloadProgress(4/4) @ 200", "responseReceived(503, 1) @ 200", "retrying(2) @ 200",
                "downloadProgress(23/23) @ 200", "responseReceived(200, 2) @ 200",
                "value(\(specAlice), network) @ 200", "completed @ 200",
            ])
    }

    func testOperatorInterceptor_retriesOnceOn503_thenLetsTheSecond503Through() throws {
        transport.stub(path: "/v1/users/1", .text("busy", status: 503))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(interceptor: RetryOnceOn503Operator())
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertEqual((pipelineError(observer) as? LeashError)?.statusCode, 503)
    }

    func testOperatorInterceptor_alwaysRetrying_endsWithRetryLimitExceeded() throws {
        transport.stub(path: "/v1/users/1", .status(500))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(2).add(interceptor: AlwaysRetry())
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(transport.requests.count, 3)
        guard case .retryLimitExceeded(let attempts, _)? = pipelineError(observer) as? LeashError else {
            return XCTFail("expected .retryLimitExceeded, got \(pipelineTimeline(observer))")
        }
        XCTAssertEqual(attempts, 3)
    }

    func testOperatorInterceptor_transformsFailureIntoFallbackValue() throws {
        transport.stub(path: "/v1/users/1", .error(.notConnectedToInternet))
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(interceptor: OfflineFallback())
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(specBob), interceptor) @ 200", "completed @ 200"])
    }

    func testOperatorInterceptor_seesTheExecutionContext() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let seen = PipelineLog()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(interceptor: ContextSpy(log: seen))
        }

        _ = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(seen.all, ["/users/1 attempt 1 https://api.example.com/v1/users/1"])
    }
}

/// The `OperatorInterceptor` of Leash's documentation.
/// Retries an attempt answered 503, once (an operator interceptor).
struct RetryOnceOn503Operator: OperatorInterceptor {
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        upstream.flatMap { response -> Observable<Response<Data>> in
            response.statusCode == 503 && context.attempt == 1 ? context.retry() : .just(response)
        }
    }
}

private struct AlwaysRetry: OperatorInterceptor {
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        upstream.flatMap { _ in context.retry() }
    }
}

private struct OfflineFallback: OperatorInterceptor {
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        upstream.map { response in
            guard case .transport? = response.error as? LeashError else { return response }
            return .success(value: Data(specBobJSON.utf8), extra: nil)
        }
    }
}

private struct ContextSpy: OperatorInterceptor {
    let log: PipelineLog
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        let url = context.request.urlRequest?.url?.absoluteString ?? "no URL"
        log.append("\(context.endpoint.path) attempt \(context.attempt) \(url)")
        return upstream
    }
}
