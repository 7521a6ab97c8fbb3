// The README's "Testing a view model" snippet, compiled and run: `SearchViewModel`
// (Playgrounds/Examples) in virtual time. The block between `// README:` and
// `// README end` is copied into README.md as it is; `ReadmeCodeBlocksTests` checks it.

import Foundation
import LeashExamples
import LeashTestSupport
import RxLeash
import RxTesting
import XCTest

final class ReadmeViewModelSnippetTests: XCTestCase {
    func testSearchViewModel_inVirtualTime() throws {
        let baseline = Resources.total
        defer { assertResourcesReturn(to: baseline) }
        // README: view model
        let leanne = User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)  // one tick = 1 ms
        let stub = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/users", .json(encoding: [leanne], delay: .milliseconds(120)))
        let manager = try Manager.Builder()
            .url("https://api.example.com")
            .transport(stub)  // scripted answers instead of the network
            .scheduler(scheduler)  // Leash's own timers run in virtual time too
            .build()
        let typing = scheduler.createHotObservable([.next(210, "l"), .next(250, "le"), .next(300, "lea")])
        let viewModel = SearchViewModel(
            query: typing.asObservable(), client: Client(manager: manager), scheduler: scheduler)

        let observer = scheduler.start { viewModel.state }  // subscribes at 200, disposes at 1000

        // Searching 300 ms after the last keystroke, results 120 ms later, one request:
        XCTAssertEqual(
            observer.events, [.next(200, .idle), .next(600, .searching("lea")), .next(720, .results([leanne]))])
        XCTAssertEqual(stub.requests.map { $0.url?.query }, ["q=lea"])
        // README end
    }
}
