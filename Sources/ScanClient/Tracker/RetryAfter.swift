package import Foundation

/// The `Retry-After` header of a refused poll: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
package enum RetryAfter {
    /// The wait it asks for, or nil when absent, unreadable, negative or not finite.
    package static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int(text) { return seconds >= 0 ? .seconds(min(seconds, 86_400)) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        let seconds = max(0, min(date.timeIntervalSince(now), 86_400))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
