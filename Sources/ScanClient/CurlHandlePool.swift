import CCurlShim
import NIOConcurrencyHelpers

/// Idle libcurl easy handles of one client, reused transfer after transfer: a handle keeps its live
/// connections, TLS session ids and DNS cache across `curl_easy_reset`, so consecutive polls of a run
/// go over one kept-alive connection (and one TLS session) instead of a new one each time.
/// Transfers running at once take different handles; at most `maxIdle` are kept.
final class CurlHandlePool: Sendable {
    /// A libcurl easy handle (`CURL *`) owned by whoever holds it; only one transfer uses it at a time.
    struct Handle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    private let idle = NIOLockedValueBox<[Handle]>([])
    let maxIdle: Int

    init(maxIdle: Int = 8) {
        self.maxIdle = maxIdle
    }

    /// An idle handle (reset to defaults, its connections kept), or a new one; nil when libcurl cannot make one.
    func take() -> Handle? {
        if let handle = idle.withLockedValue({ $0.popLast() }) { return handle }
        return curl_easy_init().map(Handle.init)
    }

    /// Returns a handle after its transfer; `reusable` false (a failed or canceled transfer) closes it.
    func give(back handle: Handle, reusable: Bool) {
        if reusable { curl_easy_reset(handle.pointer) }  // drop pointers into the finished transfer; connections stay
        let kept = reusable && idle.withLockedValue { handles in
            guard handles.count < maxIdle else { return false }
            handles.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle.pointer) }
    }

    deinit {
        for handle in idle.withLockedValue({ $0 }) { curl_easy_cleanup(handle.pointer) }
    }
}
