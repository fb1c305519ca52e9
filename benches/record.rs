//! Criterion benchmark of [`idgrep::record`] in bytes per second of analysed lines: the
//! field of every ID occurrence and the line's time, per format and mixed, and the key/value
//! walk of audits. The lines are written here, modelled on the benchmark corpus and on the
//! shapes of real JSON, logfmt, OpenStack, kubelet, syslog and access logs; the ID spans are
//! found once, outside the timed loop, as the search loop would hand them over.
//!
//! `cargo bench --bench record`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idgrep::record::{self, Analysis, PairBuffers, TimeContext};
use idgrep::scan;
use jiff::tz::TimeZone;

const JSON: &[&str] = &[
    r#"{"ts":"2026-11-29T00:00:04.485Z","level":"info","svc":"api","msg":"order created","order_id":"01f9s346q3d25vt4f5v37e3s3e","request_id":"d5a4fd12-aabf-7228-a219-e9cb0eb53f16","trace_id":"7c6cdbcfbccd39924b006f7e73b64c1b","user":{"id":"01cfssz5awsh8vhtpre95b9ee0","tier":"plus"},"items":[{"sku":"SKU-1164","qty":2}],"total":"178.63","currency":"EUR"}"#,
    r#"{"ts":"2026-11-29T00:00:10.505Z","level":"info","svc":"api","msg":"order created","order_id":"01fenecfseczp11hygcpwpq5e6","request_id":"026c48bb-f33f-7ff9-943a-8f506b40928b","trace_id":"3d0fc53ff5473869f7fa808d0910a4d5","user":{"id":"01my63fch26w14wmchwyfgcw8t","tier":"free"},"items":[{"sku":"SKU-1704","qty":3},{"sku":"SKU-1331","qty":1},{"sku":"SKU-1118","qty":4}],"total":"6.25","currency":"EUR"}"#,
    r#"{"ts":"2026-11-29T00:00:20.905Z","level":"info","svc":"api","msg":"profile fetched","user_id":"01m5g5e4g7x0nth82f7ag3bckk","request_id":"0034d660-8697-78d4-abed-440e50454f31","trace_id":"659a245a5b481f0d15652888d3bbc8df"}"#,
    r#"{"ts":"2026-11-29T00:51:34.349Z","level":"info","svc":"api","msg":"order status changed","order_id":"01bg59s2s1kke59rmz9j92v81e","from":"packed","to":"shipped","trace_id":"f74733ad2c6404595194a2a2da758127"}"#,
    r#"{"ts":"2026-11-29T01:02:11.001Z","level":"warn","svc":"api","msg":"payment retry for order 01b59gq8h7qezzs1a0zwsk9tpr","attempt":2,"payment_id":"149d4395-36b3-416f-8aee-b975729fae92","error":"upstream timeout after 3000ms"}"#,
    r#"{"ts":"2026-11-29T01:07:45.250Z","level":"error","svc":"api","msg":"order rejected","order_id":"01fwv8cf5bn5mfqgc1trtdrhn3","reason":"card \"declined\" by issuer","ctx":{"batch_id":"01mt5gevqez2ntqsc0j4dzckce","shard":7,"retry":false},"tags":["checkout","eu-west-1"]}"#,
    r#"{"time":1795946400.123,"level":30,"pid":4211,"hostname":"api-7b6bd9b949-9csb4","req":{"id":"0aee0ca9-2373-7881-884d-8c4fa2815d28","method":"GET","url":"/v1/orders/01g2x43gc4nqhn2gmhk041e6yx"},"msg":"request completed","responseTime":12}"#,
    r#"{"time":1795946401,"level":30,"pid":4211,"hostname":"api-7b6bd9b949-9csb4","req":{"id":"512c9791-e558-708b-8a71-96b50ac2f867","method":"POST","url":"/v1/orders"},"res":{"statusCode":201},"order":{"id":"01mx260yewq2je73cc4qbwg06p","lines":3},"msg":"request completed"}"#,
    r#"{"@timestamp":"2026-11-29T10:00:00.000+01:00","log.level":"INFO","message":"Settled batch","service.name":"ledger","event":{"dataset":"ledger.audit"},"labels":{"settlement_id":"24a8940f-1f83-7f99-9ee3-692f09e2e8c6","batch_id":"01ca46rzck82ym3r5aescybd2s"},"ecs.version":"8.11.0"}"#,
    r#"{"timestamp":"2026-11-29 10:00:01,337","level":"INFO","logger":"worker.Batch","thread":"worker-3","message":"batch 01f9s346q3d25vt4f5v37e3s3e started with 235 orders","mdc":{"job_id":1173,"trace":"ab12cd34ef56ab78"}}"#,
    r#"{"ts":1795946402123,"lvl":"debug","caller":"cache/redis.go:88","msg":"cache hit","key":"order:01cfssz5awsh8vhtpre95b9ee0:summary","ttl_ms":59000}"#,
    r#"{"ts":1795946402.5,"level":"info","caller":"grpc/server.go:210","msg":"finished unary call","grpc.method":"GetOrder","grpc.request.id":"f58904db-a41e-4ccc-afc1-626e53a13043","grpc.code":"OK","grpc.time_ms":1.27}"#,
    r#"{"ts":"2026-11-29T10:00:03Z","level":"info","msg":"shipment created","shipment":{"id":"7f6a6f0f-b23c-4f5d-92ce-c255404e4fb4","order_ids":["01fenecfseczp11hygcpwpq5e6","01my63fch26w14wmchwyfgcw8t","01m5g5e4g7x0nth82f7ag3bckk"],"carrier":"dhl","weight_g":1820}}"#,
    r#"{"ts":"2026-11-29T10:00:04.000001Z","level":"info","svc":"notifier","msg":"email queued","order":"order_01bg59s2s1kke59rmz9j92v81e","user":"user_01b59gq8h7qezzs1a0zwsk9tpr","template":"order_shipped","locale":"de-DE"}"#,
    r#"{"authority":"shop.example.net","downstream_local_address":"127.0.0.1:1080","downstream_remote_address":"127.0.0.1:50776","requested_server_name":null,"protocol":"HTTP/1.1","response_code":200,"response_code_details":"via_upstream","request_id":"3cea27d2-6934-4484-a73c-f575dcad6ba2","duration":35,"start_time":"2026-11-29T10:00:05.932Z","upstream_host":"10.132.176.15:80","bytes_received":181,"bytes_sent":628,"method":"POST","upstream_service_time":"34","response_flags":"-","upstream_cluster":"outbound|80||shop-api.shop.svc.cluster.local","path":"/api/orders/01fwv8cf5bn5mfqgc1trtdrhn3/items","user_agent":"Go-http-client/1.1","route_name":null}"#,
    r#"{"duration":43,"upstream_transport_failure_reason":null,"connection_termination_details":null,"upstream_local_address":"10.132.17.30:46050","path":"/api/datasources/proxy/uid/ddke7mr6q6800e/api/v1/query_range","bytes_received":181,"downstream_remote_address":"127.0.0.1:58152","start_time":"2026-11-29T10:00:06.233Z","route_name":null,"bytes_sent":628,"request_id":"69e58b08-1006-47e3-bfc9-67a64cb14028","protocol":"HTTP/1.1","method":"POST","x_forwarded_for":"34.123.182.126,10.132.17.30"}"#,
    r#"2026-11-29T10:00:07.443672180Z stdout F {"ts":"2026-11-29T10:00:07.443Z","level":"info","svc":"notifier","msg":"sms sent","user_id":"01mt5gevqez2ntqsc0j4dzckce","provider":"twilio","segments":1}"#,
    r#"2026-11-29T10:00:08.963485717Z stderr F {"level":"error","svc":"notifier","msg":"webhook failed","webhook_id":"2014b3ce-107f-40e2-92f8-28767efc2f91","status":502,"body":"<html>Bad Gateway</html>"}"#,
    r#"{"ts":"2026-11-29T10:00:09Z","level":"info","msg":"refund issued","refund":{"id":"a3a0aac3-6098-42cc-bbd8-18319478da6b","payment":{"id":"0c621de4-9f14-7fda-b988-c79fc35526f7","order":{"id":"01g2x43gc4nqhn2gmhk041e6yx"}}},"amount":{"value":"12.90","currency":"EUR"}}"#,
    r#"{"ts":"2026-11-29T10:00:10.101Z","level":"debug","msg":"saga step","saga_id":"0471948d-3329-7c87-b09e-8a7f770d9106","step":"reserve_stock","state":"done","compensations":[],"payload":{"sku":"SKU-2640","qty":2,"warehouse":"FRA-2"}}"#,
    r#"{"ts":"2026-11-29T10:00:11.202Z","level":"info","msg":"user \"anna\" logged in from 10.2.3.4","session_id":"f8b46287-cced-4041-8ff0-2cee737443e2","user_id":"01mx260yewq2je73cc4qbwg06p","mfa":true}"#,
    r#"{"ts":"2026-11-29T10:00:12.303Z","level":"info","svc":"api","msg":"order created","order_id":"01ca46rzck82ym3r5aescybd2s","request_id":"cbae5302-82bd-76cb-8d21-f6be6abf0d7c","trace_id":"52eeb41f3b7122d37c2834b29d300525","user":{"id":"01f9s346q3d25vt4f5v37e3s3e","tier":"pro"},"items":[{"sku":"SKU-3465","qty":4},{"sku":"SKU-1357","qty":4}],"total":"424.40","currency":"EUR"}"#,
    r#"{"t":"2026-11-29T10:00:13.404Z","l":"I","c":"COMMAND","ctx":"conn1234","msg":"Slow query","attr":{"ns":"shop.orders","command":{"find":"orders","filter":{"_id":"e7893f57-fd14-4160-ad11-5cea325a65e1"}},"durationMillis":140}}"#,
    r#"{"ts":"2026-11-29T10:00:14.505Z","level":"info","msg":"cart merged","cart_id":"c8df4f50-947a-4eb2-8c57-d21fa5d32826","merged_from":["dfe574de-7399-78b8-86e7-577496a2c877","61ba4168-160a-4b59-a61f-f2d3c425c8d9"],"items":5}"#,
];

const LOGFMT: &[&str] = &[
    r#"ts=2026-11-29T00:00:50.872Z level=info svc=payments msg="payment intent created" payment_id=149d4395-36b3-416f-8aee-b975729fae92 order_id=d5a4fd12-aabf-7228-a219-e9cb0eb53f16 customer_id=026c48bb-f33f-7ff9-943a-8f506b40928b amount=163.70 currency=EUR request_id=0034d660-8697-78d4-abed-440e50454f31 trace_id=22dce3e8a727540e96f4940d70988c5a"#,
    r#"ts=2026-11-29T01:18:12.375Z level=info svc=payments msg="payment captured" payment_id=f58904db-a41e-4ccc-afc1-626e53a13043 order_id=0aee0ca9-2373-7881-884d-8c4fa2815d28 amount=135.98"#,
    r#"ts=2026-11-29T05:46:04.502Z level=info svc=payments msg="settlement entry added" settlement_id=512c9791-e558-708b-8a71-96b50ac2f867 payment_id=7f6a6f0f-b23c-4f5d-92ce-c255404e4fb4 amount=246.21 entry=84"#,
    r#"ts=2026-11-29T04:37:14.662Z level=debug svc=worker msg="batch item merged" batch=01f9s346q3d25vt4f5v37e3s3e order_id=01cfssz5awsh8vhtpre95b9ee0 sources="[01fenecfseczp11hygcpwpq5e6 01my63fch26w14wmchwyfgcw8t]" item=82"#,
    r#"ts=2026-11-29T00:00:51.750Z level=debug svc=worker msg="batch item merged" batch=01f9s346q3d25vt4f5v37e3s3e order_id=01m5g5e4g7x0nth82f7ag3bckk sources="[01bg59s2s1kke59rmz9j92v81e 01b59gq8h7qezzs1a0zwsk9tpr 01fwv8cf5bn5mfqgc1trtdrhn3]" item=1"#,
    r#"level=info ts=2026-11-29T15:00:08.325Z caller=compact.go:441 component=tsdb msg="compact blocks" count=3 mint=1576130400000 maxt=1576152000000 ulid=01mt5gevqez2ntqsc0j4dzckce sources="[01g2x43gc4nqhn2gmhk041e6yx 01mx260yewq2je73cc4qbwg06p 01ca46rzck82ym3r5aescybd2s]" duration=2.897213221s"#,
    r#"level=info ts=2026-11-29T13:00:02.048Z caller=compact.go:496 component=tsdb msg="write block" mint=1576144800000 maxt=1576152000000 ulid=01f9s346q3d25vt4f5v37e3s3e duration=1.987867109s"#,
    r#"level=info ts=2026-11-29T13:00:02.112Z caller=db.go:1017 component=tsdb msg="Deleting obsolete block" block=01cfssz5awsh8vhtpre95b9ee0"#,
    r#"ts=2026-11-29T15:10:44.103611953Z caller=filetargetmanager.go:181 level=info component=logs logs_config=default msg="received file watcher event" name=/var/log/pods/shop_api-5bf8799d98-jx47p_3cea27d2-6934-4484-a73c-f575dcad6ba2/api/0.log op=CREATE"#,
    r#"ts=2026-11-29T15:10:43.834919864Z caller=tailer.go:245 level=info component=logs logs_config=default component=tailer msg="stopped tailing file" path=/var/log/pods/shop_web-7fd6786f4b-242cb_69e58b08-1006-47e3-bfc9-67a64cb14028/web/0.log"#,
    r#"ts=2026-11-29T15:10:43.834940494Z caller=filetarget.go:192 level=info component=logs logs_config=default msg="filetarget: watcher closed, tailer stopped, positions saved" path=/var/log/pods/*2014b3ce-107f-40e2-92f8-28767efc2f91/web/*.log"#,
    r#"time="2026-11-29T10:00:00+01:00" level=info msg="pulled image" image="registry.example.net/shop/api@sha256:14e725e2d664e2922bab7536f536a92a481b759bfd88f8402b57619050b08766" pod_uid=a3a0aac3-6098-42cc-bbd8-18319478da6b"#,
    r#"time="2026-11-29T10:00:01Z" level=warning msg="slow request for order 01bg59s2s1kke59rmz9j92v81e" method=GET path=/v1/orders/01bg59s2s1kke59rmz9j92v81e duration_ms=812 request_id=0c621de4-9f14-7fda-b988-c79fc35526f7"#,
    r#"t=1795946402 lvl=info msg="job finished" job_id=0471948d-3329-7c87-b09e-8a7f770d9106 tenant=acme rows=18234 elapsed=3.1s"#,
    r#"t=1795946403123 lvl=eror msg="job failed" job_id=f8b46287-cced-4041-8ff0-2cee737443e2 err="context deadline exceeded (Client.Timeout exceeded while awaiting headers)" attempt=3"#,
    r#"ts=2026-11-29T10:00:04.000Z level=info svc=auth msg="token issued" user_id=01b59gq8h7qezzs1a0zwsk9tpr session_id=e7893f57-fd14-4160-ad11-5cea325a65e1 client=web scope="orders:read orders:write""#,
    r#"ts=2026-11-29T10:00:05.000Z level=debug svc=payments msg="db pool stats" conn_id=1052 open=24 idle=1 last_tx=cbae5302-82bd-76cb-8d21-f6be6abf0d7c"#,
    r#"ts=2026-11-29T10:00:06.000Z level=info svc=inventory msg="stock reserved" reservation_id=c8df4f50-947a-4eb2-8c57-d21fa5d32826 order_id=01fwv8cf5bn5mfqgc1trtdrhn3 sku=SKU-2640 qty=2 warehouse=FRA-2"#,
    r#"ts=2026-11-29T10:00:07.000Z level=info svc=inventory msg="stock released" reservation_id=dfe574de-7399-78b8-86e7-577496a2c877 reason="order \"cancelled\" by user" order_id=01mt5gevqez2ntqsc0j4dzckce"#,
    r#"ts=2026-11-29T10:00:08.000Z level=info svc=gateway msg=request method=POST path=/v1/users/01g2x43gc4nqhn2gmhk041e6yx/orders status=201 bytes=4913 ua="python-requests/2.32.3" latency=0.144 request_id=61ba4168-160a-4b59-a61f-f2d3c425c8d9"#,
    r#"ts=2026-11-29T10:00:09.000Z level=info svc=ledger msg="journal posted" journal=1001 payment_id=5cb34761-1a3c-49d9-bdcb-ee500fe7ee5f settlement_id=324bdb2e-1142-721c-b023-64f9572b85a8 checksum=93e0838a0c2769d0640cd16e6e5cafdd7f838227"#,
    r#"ts=2026-11-29T10:00:10.000Z level=info svc=shipping msg="label printed" shipment_id=d19bdd0b-6cc6-7d5d-a2cb-e54014c2b54b orders="01mx260yewq2je73cc4qbwg06p,01ca46rzck82ym3r5aescybd2s" carrier=dhl"#,
    r#"ts=2026-11-29T10:00:11.000Z level=info svc=search msg="reindex done" index=orders-v7 task_id=24a8940f-1f83-7f99-9ee3-692f09e2e8c6 docs=1823401 took=41.2s"#,
    r#"ts=2026-11-29T10:00:12.000Z level=info svc=api msg="feature flag evaluated" flag=new-checkout user_id=01my63fch26w14wmchwyfgcw8t variant=B"#,
];

const PLAIN: &[&str] = &[
    r#"nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi_compute.wsgi.server [req-149d4395-36b3-416f-8aee-b975729fae92 113d3a99c3da401fbd62cc2caa5b96d2 54fadb412c4e40cdbaed9335e4c35a9e - - -] 10.11.10.1 "GET /v2/54fadb412c4e40cdbaed9335e4c35a9e/servers/detail HTTP/1.1" status: 200 len: 1893 time: 0.2477829"#,
    r#"nova-compute.log.1.2017-05-16_13:55:31 2017-05-16 00:00:04.500 2931 INFO nova.compute.manager [req-f58904db-a41e-4ccc-afc1-626e53a13043 - - - - -] [instance: 7f6a6f0f-b23c-4f5d-92ce-c255404e4fb4] VM Started (Lifecycle Event)"#,
    r#"nova-compute.log.1.2017-05-16_13:55:31 2017-05-16 00:00:10.302 2931 INFO nova.virt.libvirt.driver [-] [instance: 7f6a6f0f-b23c-4f5d-92ce-c255404e4fb4] Instance spawned successfully."#,
    r#"nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:10.279 25743 INFO nova.api.openstack.compute.server_external_events [req-3cea27d2-6934-4484-a73c-f575dcad6ba2 f7b8d1f1d4d44643b07fa10ca7d021fb e9746973ac574c6b8a9e8857f56a7608 - - -] Creating event network-vif-plugged:69e58b08-1006-47e3-bfc9-67a64cb14028 for instance 7f6a6f0f-b23c-4f5d-92ce-c255404e4fb4"#,
    r#"nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:17.504 25746 INFO nova.osapi_compute.wsgi.server [req-2014b3ce-107f-40e2-92f8-28767efc2f91 113d3a99c3da401fbd62cc2caa5b96d2 54fadb412c4e40cdbaed9335e4c35a9e - - -] 10.11.10.1 "DELETE /v2/54fadb412c4e40cdbaed9335e4c35a9e/servers/7f6a6f0f-b23c-4f5d-92ce-c255404e4fb4 HTTP/1.1" status: 204 len: 203 time: 0.2751"#,
    r#"I1129 10:00:36.014609    3224 kubelet_volumes.go:163] "Cleaned up orphaned pod volumes dir" podUID="a3a0aac3-6098-42cc-bbd8-18319478da6b" path="/var/lib/kubelet/pods/a3a0aac3-6098-42cc-bbd8-18319478da6b/volumes""#,
    r#"I1129 10:00:34.956820    3224 kubelet.go:2430] "SyncLoop (PLEG): event for pod" pod="shop/api-7b6bd9b949-9csb4" event={"ID":"a3a0aac3-6098-42cc-bbd8-18319478da6b","Type":"ContainerDied","Data":"c605ad2cdc74c6b5288f2532ad71cce81a28ef6965f97a89ff6609deb825553a"}"#,
    r#"I1129 10:00:34.834835    3224 reconciler_common.go:172] "operationExecutor.UnmountVolume started for volume \"certs\" (UniqueName: \"kubernetes.io/secret/a3a0aac3-6098-42cc-bbd8-18319478da6b-certs\") pod \"a3a0aac3-6098-42cc-bbd8-18319478da6b\" (UID: \"a3a0aac3-6098-42cc-bbd8-18319478da6b\") ""#,
    r#"E1129 10:00:41.375655    4736 pod_workers.go:1298] "Error syncing pod, skipping" err="failed to \"StartContainer\" with CrashLoopBackOff" pod="shop/web-56b7c6b6df-j7jh6" podUID="0c621de4-9f14-7fda-b988-c79fc35526f7""#,
    r#"W1129 10:00:42.183001    4736 kuberuntime_manager.go:1256] start failed in pod web-56b7c6b6df-j7jh6_shop(0c621de4-9f14-7fda-b988-c79fc35526f7), skipping"#,
    r#"Nov 29 10:00:55 shop-node-3 kernel[0]: audit: type=1400 apparmor="DENIED" operation="open" profile="cri-containerd.apparmor.d" name="/var/lib/kubelet/pods/0471948d-3329-7c87-b09e-8a7f770d9106/volumes" pid=30298"#,
    r#"Nov 29 10:01:07 shop-node-3 systemd[1]: Started cri-containerd-f8b46287-cced-4041-8ff0-2cee737443e2.scope - libcontainer container."#,
    r#"Jul  1 22:03:31 mac-10-105-163-202 com.apple.cts[258]: com.apple.ical.sync.x-coredata://E7893F57-FD14-4160-AD11-5CEA325A65E1/CalDAVPrincipal/p11: scheduler_evaluate_activity told me to run this job"#,
    r#"Jul  4 13:56:31 mac-10-105-162-105 SCIM[487]: [Accounts] Failed to update account with identifier CBAE5302-82BD-76CB-8D21-F6BE6ABF0D7C, error: Error Domain=ABAddressBookErrorDomain Code=1002 "(null)""#,
    r#"10.3.71.130 - - [29/Nov/2026:00:00:00 +0000] "POST /v1/users/01f9s346q3d25vt4f5v37e3s3e/orders HTTP/1.1" 201 4913 "-" "python-requests/2.32.3" 0.144 d5a4fd12-aabf-7228-a219-e9cb0eb53f16"#,
    r#"10.1.208.69 - - [29/Nov/2026:00:00:00 +0000] "GET /v1/users/01cfssz5awsh8vhtpre95b9ee0/profile HTTP/1.1" 200 6040 "-" "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15" 0.041 026c48bb-f33f-7ff9-943a-8f506b40928b"#,
    r#"10.1.29.171 - - [29/Nov/2026:16:00:54 +0000] "GET /v1/orders/01fenecfseczp11hygcpwpq5e6/items HTTP/1.1" 200 4481 "-" "okhttp/4.12.0" 0.115 c8df4f50-947a-4eb2-8c57-d21fa5d32826"#,
    r#"2026-11-29T00:02:42.585Z | INFO | Ledger.Posting | Posted payment {dfe574de-7399-78b8-86e7-577496a2c877} for order 01my63fch26w14wmchwyfgcw8t to account 4000-EUR, amount 163.70"#,
    r#"2026-11-29T18:55:51.485Z | INFO | Ledger.Settlement | Journal line 227 booked under settlement {61ba4168-160a-4b59-a61f-f2d3c425c8d9}, payment {d19bdd0b-6cc6-7d5d-a2cb-e54014c2b54b}"#,
    r#"2026-11-29 00:00:33,337 INFO  [worker-3] batch 01m5g5e4g7x0nth82f7ag3bckk started with 235 orders"#,
    r#"2026-11-29 15:50:52,576 INFO  [worker-4] processing order 01bg59s2s1kke59rmz9j92v81e for user 01b59gq8h7qezzs1a0zwsk9tpr"#,
    r#"2026-11-29 01:08:28,193 DEBUG [worker-1] picked SKU-2640 x2 for order 01fwv8cf5bn5mfqgc1trtdrhn3 (bin=73541)"#,
    r#"2026-11-29 00:28:56.946 [BILLING-1] INFO INVOICE INV-2026-821461 ISSUED ORDER=01MT5GEVQEZ2NTQSC0J4DZCKCE CUSTOMER=01G2X43GC4NQHN2GMHK041E6YX TOTAL=158.03 EUR"#,
    r#"2026-11-29 10:05:02.801 UTC [billing-0] INFO: erp.export queued ref=324BDB2E1142721CB02364F9572B85A8 doc=INV-2026-118843"#,
    r#"2016-09-29 00:00:46, Info                  CBS    Loading offline registry hive: SOFTWARE, into registry key '{5cb34761-1a3c-49d9-bdcb-ee500fe7ee5f}GLOBALROOT/Device/HarddiskVolumeShadowCopy2/Windows/System32/config/SOFTWARE' from path '\\?\GLOBALROOT\Device\HarddiskVolumeShadowCopy2\Windows\System32\config\SOFTWARE'."#,
    r#"[2026-11-29 10:00:01,002] ERROR Failed to process record for key(01mx260yewq2je73cc4qbwg06p) in partition orders-7 (kafka.consumer.Worker)"#,
    r#"2026-11-29T10:00:02.220+01:00 WARN  o.s.web.servlet.PageNotFound : No mapping for GET /api/carts/24a8940f-1f83-7f99-9ee3-692f09e2e8c6/items"#,
];

fn context() -> TimeContext {
    TimeContext::new(TimeZone::UTC, "2026-12-31T00:00:00Z".parse().unwrap())
}

/// A line and the spans of its IDs.
type Prepared = (&'static [u8], Vec<(usize, usize)>);

/// Each line with its ID spans, as the search loop hands them over.
fn prepared(lines: &[&'static str]) -> Vec<Prepared> {
    lines
        .iter()
        .map(|line| {
            let mut spans = Vec::new();
            scan::for_each_token(line.as_bytes(), |hit| spans.push((hit.start, hit.end)));
            assert!(!spans.is_empty(), "no ID in {line}");
            (line.as_bytes(), spans)
        })
        .collect()
}

fn analyse(c: &mut Criterion) {
    let ctx = context();
    let mixed: Vec<&str> = [JSON, LOGFMT, PLAIN].concat();
    let mut group = c.benchmark_group("record");
    for (name, lines) in [
        ("json", JSON),
        ("logfmt", LOGFMT),
        ("plain", PLAIN),
        ("mixed", &mixed[..]),
    ] {
        let lines = prepared(lines);
        let bytes: usize = lines.iter().map(|(line, _)| line.len()).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        let mut out = Analysis::default();
        group.bench_function(format!("analyse {name}"), |b| {
            b.iter(|| {
                let mut found = 0;
                for (line, spans) in &lines {
                    record::analyse(line, spans, true, &ctx, &mut out);
                    found += usize::from(out.time_ms().is_some());
                }
                found
            })
        });
        if name == "mixed" {
            let mut buffers = PairBuffers::default();
            group.bench_function("for_each_pair mixed", |b| {
                b.iter(|| {
                    let mut pairs = 0;
                    for (line, _) in &lines {
                        record::for_each_pair(line, &mut buffers, |_, _| pairs += 1);
                    }
                    pairs
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, analyse);
criterion_main!(benches);
