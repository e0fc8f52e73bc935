import Testing

@testable import SpineReading

/// The reading's switches (`ReadingRule`): the names the lab and `EngineEval --without` use, and that a test
/// process (like a scan) has every rule on.
struct ReadingRuleTests {
    @Test("a switch list names rules by their names, separated by commas; spaces and unknown names are ignored")
    func parse() {
        #expect(ReadingRule.parse("deblur, line_check,no_such_rule,,lettering_join ") == [.deblur, .lineCheck, .letteringJoin])
        #expect(ReadingRule.parse("").isEmpty)
        #expect(ReadingRule.parse(ReadingRule.allCases.map(\.rawValue).joined(separator: ",")) == Set(ReadingRule.allCases))
    }

    @Test("every rule has its own name, and a process without the variable has every rule on")
    func everyRuleOn() {
        #expect(Set(ReadingRule.allCases.map(\.rawValue)).count == ReadingRule.allCases.count)
        #expect(ReadingRule.switchedOff.isEmpty, "the tests ran with \(ReadingRule.environmentKey) set")
        #expect(ReadingRule.allCases.allSatisfy { $0.isOn })
    }
}
