import Foundation
import LeashExamples
import LeashTesting
import RxLeash
import RxTestingCore

extension Tour {
    /// `client.rx`: every execution as an Observable.
    func reactive(_ client: Client) {
        step("Executing with client.rx") {
            say(
                """
                client.rx.execute returns a cold Observable: subscribing sends the request, the
                value arrives, then completion. Disposing cancels.
                """)
            let users = try client.rx.execute(API.users, type: [User].self).toBlocking(timeout: 10).toArray()
            check(users.count == 1 && users[0].count >= 3, "one value ([User]), then completed")

            let name = try client.rx.single(GetUser(id: 1)).map { $0.name }.asObservable()
                .toBlocking(timeout: 10).single()
            check(name == "Leanne Graham", "a Single for a one-shot call: \(name)")

            let response = try client.rx.response(GetUser(id: 2)).toBlocking(timeout: 10).single()
            say(
                "client.rx.response gives each value as a ResponseValue, saying where it came from: "
                    + "\(response.source), status \(response.statusCode ?? 0)")
            check(response.source == .network && response.statusCode == 200, "it came from the network")
        }
    }

    /// Requests composed like any other streams.
    func pipelines(_ client: Client) {
        step("A composed pipeline: flatMap, zip, flatMapLatest") {
            say("flatMap chains requests: a user, then that user's posts.")
            let posts = try client.rx.execute(GetUser(id: 1))
                .flatMap { user in client.rx.execute(API.posts(userId: user.id), type: [Post].self) }
                .toBlocking(timeout: 10).single()
            check(!posts.isEmpty && posts.allSatisfy { $0.userId == 1 }, "\(posts.count) posts of user 1")

            say("zip runs requests side by side and pairs their values.")
            let pair = try Observable.zip(client.rx.execute(GetUser(id: 1)), client.rx.execute(GetUser(id: 2)))
                .toBlocking(timeout: 10).single()
            check(pair.0.id == 1 && pair.1.id == 2, "\(pair.0.username) and \(pair.1.username), together")

            say("flatMapLatest keeps only the newest: \"le\" is cancelled the moment \"er\" arrives.")
            let results = try Observable.of("le", "er")
                .flatMapLatest { term in client.rx.execute(API.searchUsers(term), type: [User].self) }
                .toBlocking(timeout: 10).toArray()
            let names = results.first?.map(\.name) ?? []
            check(results.count == 1, "one result set arrived, not two")
            check(
                !names.isEmpty
                    && (results.first ?? []).allSatisfy {
                        ($0.name + $0.username + $0.email).lowercased().contains("er")
                    },
                "it is the search for \"er\": \(names.joined(separator: ", "))")
        }
    }

    /// A view model, tested the way an app's tests would: in virtual time.
    func viewModelInVirtualTime() {
        step("A view model tested in virtual time") {
            say(
                """
                SearchViewModel debounces what the user types (300 ms), searches with
                flatMapLatest and shows the state. With a TestScheduler (1 tick = 1 ms) and a
                StubTransport (LeashTesting) answering after 120 ms of virtual time, the test runs
                in no time.
                """)
            let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
            let leanne = User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")
            let stub = StubTransport(scheduler: scheduler)
                .stub(.get, path: "/users", .json(encoding: [leanne], delay: 0.12))
            let manager = try Manager.Builder().url("https://api.example.com").transport(stub)
                .scheduler(scheduler).build()
            let typing = scheduler.createHotObservable([.next(210, "l"), .next(250, "le"), .next(300, "lea")])
            let viewModel = SearchViewModel(
                query: typing.asObservable(), client: Client(manager: manager), scheduler: scheduler)

            let started = Date()
            let observer = scheduler.start { viewModel.state }
            let elapsed = Date().timeIntervalSince(started)

            for event in observer.events {
                say("   t=\(event.time) ms: \(event.value.element.map(Self.describe) ?? "\(event.value)")")
            }
            check(
                observer.events == [.next(200, .idle), .next(600, .searching("lea")), .next(720, .results([leanne]))],
                "idle at 200, searching at 600 (300 ms after the last keystroke), results at 720")
            check(stub.requests.count == 1, "three keystrokes, one request")
            check(elapsed < 1, "and it took \(Int(elapsed * 1000)) ms of real time")
        }
    }

    private static func describe(_ state: SearchViewModel.State) -> String {
        switch state {
        case .results(let users): return "results [\(users.map(\.name).joined(separator: ", "))]"
        default: return "\(state)"
        }
    }
}
