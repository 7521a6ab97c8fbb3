// What tests ported from RxTest and RxBlocking get with `import RxTesting`: Rx, the test
// scheduler and blocking reads (RxTestingCore, which does not link XCTest and so also
// serves executables such as the tour), and the XCTest assertions of this module.
@_exported import Rx
@_exported import RxTestingCore
