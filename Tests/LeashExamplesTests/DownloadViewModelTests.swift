import Foundation
import LeashExamples
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The download view model in virtual time: the stub transport sends the 400-byte file in
/// steps one tick apart on the test's `TestScheduler`, and the states are checked at their
/// exact ticks.
final class DownloadViewModelTests: VirtualTimeTransferCase {
    private func makeViewModel(destination: URL? = nil) throws -> DownloadViewModel {
        let manager = try Manager.Builder().url("https://api.example.com").transport(transport).scheduler(scheduler)
            .build()
        return DownloadViewModel(
            client: Client(manager: manager), endpoint: ReportFile(), destination: destination ?? self.destination)
    }

    /// The view's subscription from tick 200 to 2000, with `actions` done at their ticks.
    private func states(
        of viewModel: DownloadViewModel, _ actions: [(TestTime, (DownloadViewModel) -> Void)]
    ) -> [Recorded<Event<DownloadViewModel.State>>] {
        for (tick, action) in actions { scheduler.scheduleAt(tick) { action(viewModel) } }
        return scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }.events
    }

    func testStart_fillsTheBarAtEachStep_thenShowsTheFile() throws {
        transport.stub(.get, path: "/report.bin", StubResponse(body: body).progress(steps: 4, every: 1))
        let viewModel = try makeViewModel()

        let events = states(of: viewModel, [(300, { $0.start() })])

        XCTAssertEqual(
            events,
            [
                .next(200, .idle), .next(300, .downloading(0)), .next(300, .downloading(0.25)),
                .next(301, .downloading(0.5)), .next(302, .downloading(0.75)), .next(303, .downloading(1)),
                .next(303, .finished(destination)),
            ])
        XCTAssertEqual(try Data(contentsOf: destination), body)
    }

    func testCancel_midway_goesBackToIdle_andLeavesNoFile() throws {
        transport.stub(.get, path: "/report.bin", StubResponse(body: body).progress(steps: 4, every: 1))
        let viewModel = try makeViewModel()

        let events = states(of: viewModel, [(300, { $0.start() }), (302, { $0.cancel() })])

        // The step due at 302 was scheduled after the cancel: it never arrives.
        XCTAssertEqual(
            events,
            [
                .next(200, .idle), .next(300, .downloading(0)), .next(300, .downloading(0.25)),
                .next(301, .downloading(0.5)), .next(302, .idle),
            ])
        XCTAssertFalse(transferFileExists(destination))
    }

    func testStartingAgain_replacesTheDownloadInProgress() throws {
        transport.stub(
            .get, path: "/report.bin", StubResponse(body: body).progress(steps: 4, every: 5),
            StubResponse(body: body).progress(steps: 2, every: 1))
        let viewModel = try makeViewModel()

        let events = states(of: viewModel, [(300, { $0.start() }), (302, { $0.start() })])

        // The first download's step due at 305 never shows: starting again cancelled it.
        XCTAssertEqual(
            events,
            [
                .next(200, .idle), .next(300, .downloading(0)), .next(300, .downloading(0.25)),
                .next(302, .downloading(0)), .next(302, .downloading(0.5)), .next(303, .downloading(1)),
                .next(303, .finished(destination)),
            ])
        XCTAssertEqual(transport.requests.count, 2)
    }

    func testServerError_becomesAMessage_andStartingAgainCanSucceed() throws {
        transport.stub(
            .get, path: "/report.bin", .status(503, delay: 2), StubResponse(body: body).progress(steps: 1))
        let viewModel = try makeViewModel()

        let events = states(of: viewModel, [(300, { $0.start() }), (400, { $0.start() })])

        XCTAssertEqual(
            events,
            [
                .next(200, .idle), .next(300, .downloading(0)),
                .next(302, .failed("The service is having trouble. Try again later.")),
                .next(400, .downloading(0)), .next(400, .downloading(1)), .next(400, .finished(destination)),
            ])
    }

    func testADestinationThatCannotBeWritten_becomesAMessage() throws {
        transport.stub(.get, path: "/report.bin", StubResponse(body: body).progress(steps: 2, every: 1))
        let blocker = folder.file("blocker")
        try Data("x".utf8).write(to: blocker)
        let viewModel = try makeViewModel(destination: blocker.appendingPathComponent("report.bin"))

        let events = states(of: viewModel, [(300, { $0.start() })])

        XCTAssertEqual(
            events,
            [
                .next(200, .idle), .next(300, .downloading(0)), .next(300, .downloading(0.5)),
                .next(301, .downloading(1)), .next(301, .failed("The file could not be saved.")),
            ])
    }

    func testALateSubscriberSeesTheCurrentState() throws {
        transport.stub(.get, path: "/report.bin", StubResponse(body: body).progress(steps: 4, every: 10))
        let viewModel = try makeViewModel()
        scheduler.scheduleAt(100) { viewModel.start() }

        let events = scheduler.start(created: 0, subscribed: 115, disposed: 2_000) { viewModel.state }.events

        XCTAssertEqual(
            events,
            [
                .next(115, .downloading(0.5)), .next(120, .downloading(0.75)), .next(130, .downloading(1)),
                .next(130, .finished(destination)),
            ],
            "the bar shows at once where the download is")
    }
}

/// The file the view model downloads: `GET /report.bin`.
private struct ReportFile: Endpoint, Sendable {
    var path: String { "/report.bin" }
    var method: HTTPMethod { .get }
}
