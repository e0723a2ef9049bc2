import Logging
import Testing

@testable import PasskeyDaemon

@Suite struct ConnectionLimitTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func admitsUpToTheMaximumAndAPlaceGivenBackIsTakenAgain() {
        let limit = ConnectionLimit(maximum: 3, logger: Self.quiet)
        #expect((0..<5).map { _ in limit.admit() } == [true, true, true, false, false])
        #expect(limit.current == 3)
        limit.leave()
        #expect(limit.admit())
        #expect(!limit.admit())
    }

    @Test func concurrentAdmissionsNeverPassTheMaximum() async {
        let limit = ConnectionLimit(maximum: 50, logger: Self.quiet)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<400 { group.addTask { limit.admit() } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 50)
        #expect(limit.current == 50)
    }

    @Test func theDerivedLimitLeavesTheReserveBelowTheDescriptorLimit() {
        let limit = ConnectionLimit.forThisProcess(configured: nil, logger: Self.quiet)
        let soft = ConnectionLimit.raiseDescriptorLimit(logger: Self.quiet)
        if let soft {
            #expect(limit.maximum == min(ConnectionLimit.ceiling, Int(soft) - ConnectionLimit.reserve))
        } else {
            #expect(limit.maximum == ConnectionLimit.ceiling)
        }
        #expect(ConnectionLimit.forThisProcess(configured: 7, logger: Self.quiet).maximum == 7)
    }
}
