// The README's "Testing a view model" snippet, compiled and run: `SearchViewModel`
// (Playgrounds/Examples) in virtual time. The README shows this file from its first
// `import` to the end of the class, as a test target of an app would hold it
// (`ReadmeCodeBlocksTests` checks it); `SearchViewModelTests` checks the same view model
// for leaks.

import LeashExamples  // the example app: SearchViewModel, User
import LeashTesting  // StubTransport: scripted answers instead of the network
import RxLeash
import RxTesting  // TestScheduler, and XCTAssertEqual for recorded events
import XCTest

final class SearchViewModelReadmeTests: XCTestCase {
    func testSearch_waitsForTheTyping_thenShowsTheResults() throws {
        let leanne = User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)  // one tick = 1 ms
        let stub = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/users", .json(encoding: [leanne], delay: 0.12))
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
    }
}
