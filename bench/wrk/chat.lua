-- wrk script: the small chat that scripts/overhead measures, as a POST to /v1/chat/completions.
--   wrk -t2 -c16 -d10s -s bench/wrk/chat.lua http://127.0.0.1:PORT/v1/chat/completions
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"model":"replay","messages":[{"role":"user","content":"Name three primary colours."}]}'
