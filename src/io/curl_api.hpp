#pragma once
// libcurl's functions, loaded on their first use (dlopen of libcurl.so.4, the soname the build
// compiles against): a local crawl, a query or a report never loads libcurl and the ~30 libraries
// behind it, 3.8 ms of every start (8.8 ms under ASan; two 3-line programs, with and without -lcurl).
#include <curl/curl.h>

namespace modelcat::io {

struct CurlApi {
    decltype(&::curl_global_init) global_init;
    decltype(&::curl_version_info) version_info;
    decltype(&::curl_getdate) getdate;
    decltype(&::curl_free) free;
    decltype(&::curl_url) url;
    decltype(&::curl_url_set) url_set;
    decltype(&::curl_url_get) url_get;
    decltype(&::curl_url_cleanup) url_cleanup;
    decltype(&::curl_easy_init) easy_init;
    decltype(&::curl_easy_setopt) easy_setopt;
    decltype(&::curl_easy_getinfo) easy_getinfo;
    decltype(&::curl_easy_strerror) easy_strerror;
    decltype(&::curl_easy_cleanup) easy_cleanup;
    decltype(&::curl_slist_append) slist_append;
    decltype(&::curl_slist_free_all) slist_free_all;
    decltype(&::curl_multi_init) multi_init;
    decltype(&::curl_multi_setopt) multi_setopt;
    decltype(&::curl_multi_add_handle) multi_add_handle;
    decltype(&::curl_multi_remove_handle) multi_remove_handle;
    decltype(&::curl_multi_perform) multi_perform;
    decltype(&::curl_multi_info_read) multi_info_read;
    decltype(&::curl_multi_poll) multi_poll;
    decltype(&::curl_multi_cleanup) multi_cleanup;
};

// Loaded and initialised (curl_global_init) once, for the process; an IoError naming the library
// when it cannot be (asked again at the next use).
const CurlApi& curl();

}  // namespace modelcat::io
