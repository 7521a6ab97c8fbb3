import Foundation
import Rx
import XCTest

final class NotificationCenterRxTests: RxTestCase {
    private let first = Notification.Name("NotificationCenterRxTests.first")
    private let second = Notification.Name("NotificationCenterRxTests.second")

    func testNotification_deliversThePostedNotificationsOfThatName_untilDisposed() {
        let center = NotificationCenter()
        var received: [String] = []
        let subscription = center.rx.notification(first)
            .subscribe(onNext: { received.append("\($0.name.rawValue) \($0.userInfo?["n"] ?? "-")") })
        center.post(name: first, object: nil, userInfo: ["n": 1])
        center.post(name: second, object: nil, userInfo: ["n": 2])
        center.post(name: first, object: nil, userInfo: ["n": 3])
        subscription.dispose()
        center.post(name: first, object: nil, userInfo: ["n": 4])
        XCTAssertEqual(received, ["NotificationCenterRxTests.first 1", "NotificationCenterRxTests.first 3"])
    }

    func testNotification_withAnObject_getsOnlyThatSendersNotifications() {
        let center = NotificationCenter()
        let sender = NSObject()
        let other = NSObject()
        var count = 0
        let subscription = center.rx.notification(first, object: sender).subscribe(onNext: { _ in count += 1 })
        center.post(name: first, object: other)
        center.post(name: first, object: sender)
        subscription.dispose()
        XCTAssertEqual(count, 1)
    }

    func testNotification_withoutAName_getsEveryName_andEachSubscriptionItsOwnObserver() {
        let center = NotificationCenter()
        var names: [Notification.Name] = []
        var second = 0
        let all = center.rx.notification(nil).subscribe(onNext: { names.append($0.name) })
        let again = center.rx.notification(first).subscribe(onNext: { _ in second += 1 })
        center.post(name: first, object: nil)
        center.post(name: self.second, object: nil)
        all.dispose()
        center.post(name: first, object: nil)
        again.dispose()
        XCTAssertEqual(names, [first, self.second])
        XCTAssertEqual(second, 2)
    }
}
