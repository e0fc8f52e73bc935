/// Whether a fallback happened before any event arrived or in the middle of the scan.
package enum FallbackPhase: String, Codable, Sendable, CaseIterable {
    case beforeFirstEvent = "before_first_event"
    case midScan = "mid_scan"
}
