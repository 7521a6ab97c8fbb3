import LeashExamples  // the example app: API, User
import LeashTesting  // StubTransport: scripted answers instead of the network
import RxLeash
import RxTesting  // TestScheduler, and XCTAssertEqual for recorded events
import XCTest

/// A view model as an RxCocoa app writes it: state as a `Driver` (never fails, replays
/// the latest list to a view that binds late), one-off messages as a `Signal`.
final class UserListViewModel: Sendable {
    let users: Driver<[User]>
    let errors: Signal<String>

    init(refresh: Signal<Void>, client: Client) {
        let failures = PublishRelay<String>()
        users = refresh.startWith(())
            .flatMapLatest { _ -> Driver<[User]> in
                client.rx.single(API.users, type: [User].self)
                    .asDriver(onErrorRecover: { error in
                        failures.accept("Could not load the users (\(error))")
                        return .empty()
                    })
            }
        errors = failures.asSignal()
    }
}

final class DriverViewModelReadmeTests: XCTestCase {
    func testUsers_loadAtOnce_andOnEachRefresh_errorsGoToTheSignal() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let leanne = User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")
        let stub = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/users", .json(encoding: [leanne], delay: 5), .status(503))
        let client = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler).build())

        // Drivers and Signals made inside deliver on the test scheduler, not the main thread.
        try SharingScheduler.mock(scheduler: scheduler) {
            let refresh = scheduler.createHotObservable([.next(300, ())]).asSignal(onErrorJustReturn: ())
            let viewModel = UserListViewModel(refresh: refresh, client: client)
            let errors = scheduler.createObserver(String.self)
            _ = viewModel.errors.emit(to: errors)

            let users = scheduler.start { viewModel.users }

            // The first load answers at 205 (and reaches the view one tick later, on the
            // scheduler); the refresh at 300 gets a 503, which the Signal reports.
            XCTAssertEqual(users.events, [.next(206, [leanne])])
            XCTAssertEqual(errors.events.count, 1)
            XCTAssertTrue(try XCTUnwrap(errors.events.first?.value.element).hasPrefix("Could not load the users"))
        }
    }
}
