"""Service credentials by documented shape (vendor docs; the studied rule sets' regexes where a
vendor documents nothing), for bench/secret_study_sets.py. `spec` is a template of
bench/secret_study_values.py; `word` the key word the scanners' tests put before it (the
service's name); `env` the variable people name it; `self_evident`: its prefix names it, so it
is also written alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Service:
    name: str
    word: str
    env: str
    spec: str
    self_evident: bool = True


def _t(rows: str) -> list[Service]:
    """One service a line: name | word | env | spec | * when self-evident."""
    out = []
    for line in rows.strip().splitlines():
        name, word, env, spec, mark = (p.strip() for p in line.split("|"))
        out.append(Service(name, word, env, spec, mark == "*"))
    return out


CLOUD = _t("""
AWS access key id | aws | AWS_ACCESS_KEY_ID | AKIA{X:16} | *
AWS temporary key id | aws | AWS_ACCESS_KEY_ID | ASIA{X:16} | *
AWS secret access key | aws | AWS_SECRET_ACCESS_KEY | {B:40} |
AWS session token | aws | AWS_SESSION_TOKEN | IQoJb3JpZ2luX2VjE{B:300} | *
AWS MWS token | amazon | MWS_AUTH_TOKEN | amzn.mws.{uuid} | *
AWS AppSync key | appsync | APPSYNC_API_KEY | da2-{L:26} | *
Bedrock API key | bedrock | AWS_BEARER_TOKEN_BEDROCK | ABSKQmVkcm9ja0FQSUtleS{A:110} | *
Google API key | google | GOOGLE_API_KEY | AIza{U:35} | *
Google OAuth client secret | google | GOOGLE_CLIENT_SECRET | GOCSPX-{U:28} | *
Google OAuth client secret (old) | google | GOOGLE_CLIENT_SECRET | {U:24} |
Google OAuth access token | google | GOOGLE_ACCESS_TOKEN | ya29.{U:120} | *
Google refresh token | google | GOOGLE_REFRESH_TOKEN | 1//0{U:100} | *
Azure AD client secret | azure | AZURE_CLIENT_SECRET | {A:3}8Q~{U:34} | *
Azure storage account key | azure | AZURE_STORAGE_KEY | {b64:64} |
Azure SAS | azure | AZURE_SAS_URL | https://acme.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2027-01-01T00:00:00Z&sig={A:43}%3D | *
Azure App Configuration | azconfig | APP_CONFIG_CONNECTION | Endpoint=https://acme.azconfig.io;Id={A:4}-l0-s0:{A:20};Secret={b64:32} | *
Azure Cosmos key | cosmos | COSMOS_KEY | {b64:64} |
Azure Functions key | azure | AZURE_FUNCTION_KEY | {U:54}== |
Azure Search admin key | azure search | AZURE_SEARCH_ADMIN_KEY | {A:52} |
Alibaba access key | alibaba | ALIBABA_ACCESS_KEY_ID | LTAI{A:20} | *
Alibaba secret | alibaba | ALIBABA_ACCESS_KEY_SECRET | {A:30} |
Tencent secret id | tencent | TENCENTCLOUD_SECRET_ID | AKID{A:32} | *
IBM Cloud API key | ibm | IBM_CLOUD_API_KEY | {U:44} |
DigitalOcean token | digitalocean | DIGITALOCEAN_TOKEN | dop_v1_{H:64} | *
DigitalOcean OAuth | digitalocean | DO_OAUTH_TOKEN | doo_v1_{H:64} | *
Linode token | linode | LINODE_TOKEN | {H:64} |
Scaleway secret | scaleway | SCW_SECRET_KEY | {uuid} |
Hetzner token | hetzner | HCLOUD_TOKEN | {A:64} |
Vultr key | vultr | VULTR_API_KEY | {X:36} |
Cloudflare API token | cloudflare | CLOUDFLARE_API_TOKEN | {U:40} |
Cloudflare origin CA | cloudflare | CF_ORIGIN_CA_KEY | v1.0-{H:24}-{H:146} | *
Yandex Cloud key | yandex | YC_API_KEY | AQVN{U:36} | *
Oracle Cloud auth token | oci | OCI_AUTH_TOKEN | {A:20}{pw} |
""")

VCS = _t("""
GitHub classic PAT | github | GITHUB_TOKEN | ghp_{A:36} | *
GitHub OAuth token | github | GH_OAUTH | gho_{A:36} | *
GitHub app token | github | GITHUB_APP_TOKEN | ghs_{A:36} | *
GitHub refresh token | github | GITHUB_REFRESH | ghr_{A:76} | *
GitHub fine-grained PAT | github | GH_PAT | github_pat_{A:22}_{A:59} | *
GitHub app client secret | github | GITHUB_CLIENT_SECRET | {H:40} |
GitLab PAT | gitlab | GITLAB_TOKEN | glpat-{U:20} | *
GitLab deploy token | gitlab | GITLAB_DEPLOY_TOKEN | gldt-{U:20} | *
GitLab runner token | gitlab | CI_RUNNER_TOKEN | glrt-{U:20} | *
GitLab runner registration | gitlab | RUNNER_REGISTRATION_TOKEN | GR1348941{U:20} | *
GitLab CI job token | gitlab | CI_JOB_TOKEN | glcbt-{H:2}_{U:20} | *
GitLab feed token | gitlab | GITLAB_FEED_TOKEN | glft-{U:20} | *
GitLab OAuth secret | gitlab | GITLAB_APP_SECRET | gloas-{H:64} | *
GitLab SCIM token | gitlab | GITLAB_SCIM | glsoat-{U:20} | *
GitLab trigger token | gitlab | TRIGGER_TOKEN | glptt-{H:40} | *
Bitbucket app password | bitbucket | BITBUCKET_APP_PASSWORD | ATBB{A:32}{h:8} | *
Bitbucket access token | bitbucket | BITBUCKET_TOKEN | ATCTT3xFfGN0{U:180}={h:8} | *
Bitbucket client secret | bitbucket | BITBUCKET_CLIENT_SECRET | {A:32} |
Azure DevOps PAT | azure devops | AZURE_DEVOPS_PAT | {b32:52} |
Azure DevOps PAT (new) | azure devops | ADO_PAT | {A:52}AZDO{A:24} |
Gitea token | gitea | GITEA_TOKEN | {H:40} |
Atlassian API token | atlassian | JIRA_API_TOKEN | ATATT3xFfGF0{U:180}={h:8} | *
""")

CHAT = _t("""
Slack bot token | slack | SLACK_BOT_TOKEN | xoxb-{D:12}-{D:13}-{A:24} | *
Slack user token | slack | SLACK_USER_TOKEN | xoxp-{D:12}-{D:12}-{D:13}-{H:32} | *
Slack app-level token | slack | SLACK_APP_TOKEN | xapp-1-A{X:10}-{D:13}-{H:64} | *
Slack config refresh token | slack | SLACK_REFRESH | xoxe-1-{A:146} | *
Slack webhook | slack | SLACK_WEBHOOK_URL | https://hooks.slack.com/services/T{X:10}/B{X:10}/{A:24} | *
Slack workflow webhook | slack | SLACK_WORKFLOW_URL | https://hooks.slack.com/workflows/T{X:10}/A{X:10}/{D:18}/{A:24} | *
Discord bot token | discord | DISCORD_TOKEN | MT{A:22}.{U:6}.{U:38} | *
Discord webhook | discord | DISCORD_WEBHOOK | https://discord.com/api/webhooks/{D:18}/{U:68} | *
Telegram bot token | telegram | TELEGRAM_BOT_TOKEN | {D:10}:AA{U:33} | *
Teams webhook | teams | TEAMS_WEBHOOK | https://acme.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/{H:32}/{uuid} | *
Mattermost token | mattermost | MATTERMOST_TOKEN | {L:26} |
Zulip API key | zulip | ZULIP_API_KEY | {A:32} |
Twitch client secret | twitch | TWITCH_CLIENT_SECRET | {L:30} |
Gitter token | gitter | GITTER_TOKEN | {H:40} |
Line channel token | line | LINE_CHANNEL_ACCESS_TOKEN | {B:172}= |
""")

PAYMENT = _t("""
Stripe live secret | stripe | STRIPE_SECRET_KEY | sk_live_{A:99} | *
Stripe test secret | stripe | STRIPE_SECRET_KEY | sk_test_{A:24} | *
Stripe restricted key | stripe | STRIPE_RESTRICTED_KEY | rk_live_{A:99} | *
Stripe webhook secret | stripe | STRIPE_WEBHOOK_SECRET | whsec_{A:32} | *
Square access token | square | SQUARE_ACCESS_TOKEN | EAAA{U:60} | *
Square OAuth secret | square | SQUARE_APP_SECRET | sq0csp-{U:43} | *
Square app token | square | SQUARE_TOKEN | sq0atp-{U:22} | *
Braintree access token | braintree | BRAINTREE_ACCESS_TOKEN | access_token$production${L:16}${H:32} | *
Braintree access token (short) | braintree | BT_ACCESS_TOKEN | access_token$sandbox${L:16} | *
Braintree tokenization key | braintree | BRAINTREE_TOKENIZATION_KEY | production_{L:8}_{L:16} | *
Braintree private key | braintree | BRAINTREE_PRIVATE_KEY | {H:32} |
PayPal client secret | paypal | PAYPAL_CLIENT_SECRET | E{U:79} |
PayPal OAuth token | paypal | PAYPAL_ACCESS_TOKEN | A21AA{U:92} | *
Adyen API key | adyen | ADYEN_API_KEY | AQE{L:6}.{U:70} | *
Adyen client key | adyen | ADYEN_CLIENT_KEY | live_{X:32} |
Razorpay key id | razorpay | RAZORPAY_KEY_ID | rzp_live_{A:14} | *
Razorpay secret | razorpay | RAZORPAY_KEY_SECRET | {A:24} |
Paystack secret | paystack | PAYSTACK_SECRET_KEY | sk_live_{H:40} | *
Flutterwave secret | flutterwave | FLW_SECRET_KEY | FLWSECK_TEST-{H:32}-X | *
Flutterwave encryption key | flutterwave | FLW_ENCRYPTION_KEY | FLWSECK_TEST{H:12} | *
Mollie API key | mollie | MOLLIE_API_KEY | live_{A:30} |
Checkout.com secret | checkout | CKO_SECRET_KEY | sk_sbox_{L:26} | *
GoCardless token | gocardless | GOCARDLESS_ACCESS_TOKEN | live_{U:40} | *
Plaid secret | plaid | PLAID_SECRET | {H:30} |
Plaid access token | plaid | PLAID_ACCESS_TOKEN | access-production-{uuid} | *
Coinbase API secret | coinbase | COINBASE_API_SECRET | {A:32} |
Shopify admin token | shopify | SHOPIFY_ACCESS_TOKEN | shpat_{H:32} | *
Shopify shared secret | shopify | SHOPIFY_SHARED_SECRET | shpss_{H:32} | *
Paddle API key | paddle | PADDLE_API_KEY | pdl_live_apikey_{L:26}_{A:22}_{A:3} | *
Xendit secret | xendit | XENDIT_SECRET_KEY | xnd_production_{A:50} | *
Midtrans server key | midtrans | MIDTRANS_SERVER_KEY | Mid-server-{U:24} | *
Authorize.net transaction key | authorize.net | AUTHNET_TRANSACTION_KEY | {A:16} |
Wise API token | wise | WISE_API_TOKEN | {uuid} |
Duffel token | duffel | DUFFEL_TOKEN | duffel_live_{U:43} | *
EasyPost key | easypost | EASYPOST_API_KEY | EZAK{A:54} | *
Chargebee key | chargebee | CHARGEBEE_API_KEY | live_{A:34} |
Lemon Squeezy key | lemonsqueezy | LEMONSQUEEZY_API_KEY | {jwt} | *
""")

OTHER = _t("""
OpenAI project key | openai | OPENAI_API_KEY | sk-proj-{U:156} | *
OpenAI legacy key | openai | OPENAI_API_KEY | sk-{A:20}T3BlbkFJ{A:20} | *
Anthropic key | anthropic | ANTHROPIC_API_KEY | sk-ant-api03-{U:93}AA | *
OpenRouter key | openrouter | OPENROUTER_API_KEY | sk-or-v1-{H:64} | *
DeepSeek key | deepseek | DEEPSEEK_API_KEY | sk-{H:32} | *
Groq key | groq | GROQ_API_KEY | gsk_{A:52} | *
xAI key | xai | XAI_API_KEY | xai-{A:80} | *
Perplexity key | perplexity | PPLX_API_KEY | pplx-{A:48} | *
Mistral key | mistral | MISTRAL_API_KEY | {A:32} |
Cohere key | cohere | COHERE_API_KEY | {A:40} |
Hugging Face token | huggingface | HF_TOKEN | hf_{A:34} | *
Replicate token | replicate | REPLICATE_API_TOKEN | r8_{A:37} | *
Pinecone key | pinecone | PINECONE_API_KEY | pcsk_{A:6}_{A:60} | *
LangSmith key | langsmith | LANGSMITH_API_KEY | lsv2_pt_{H:32}_{H:10} | *
Firecrawl key | firecrawl | FIRECRAWL_API_KEY | fc-{H:32} | *
Tavily key | tavily | TAVILY_API_KEY | tvly-{A:32} | *
ElevenLabs key | elevenlabs | ELEVENLABS_API_KEY | sk_{H:48} | *
AssemblyAI key | assemblyai | ASSEMBLYAI_API_KEY | {H:32} |
Deepgram key | deepgram | DEEPGRAM_API_KEY | {H:40} |
Weights & Biases key | wandb | WANDB_API_KEY | {H:40} |
npm token | npm | NPM_TOKEN | npm_{A:36} | *
PyPI token | pypi | PYPI_TOKEN | pypi-AgEIcHlwaS5vcmc{U:140} | *
RubyGems key | rubygems | GEM_HOST_API_KEY | rubygems_{H:48} | *
NuGet key | nuget | NUGET_API_KEY | oy2{L:43} | *
crates.io token | crates | CARGO_REGISTRY_TOKEN | cio{A:32} | *
Clojars token | clojars | CLOJARS_TOKEN | CLOJARS_{H:60} | *
Docker Hub PAT | docker | DOCKERHUB_TOKEN | dckr_pat_{U:27} | *
JFrog API key | jfrog | ARTIFACTORY_API_KEY | AKCp{A:69} | *
JFrog reference token | jfrog | JFROG_ACCESS_TOKEN | cmVmdGtuOjAxOjE3{A:48} | *
SendGrid key | sendgrid | SENDGRID_API_KEY | SG.{U:22}.{U:43} | *
Mailgun key | mailgun | MAILGUN_API_KEY | key-{H:32} | *
Mailgun private key | mailgun | MAILGUN_PRIVATE_KEY | {H:32}-{H:8}-{H:8} |
Mailchimp key | mailchimp | MAILCHIMP_API_KEY | {H:32}-us14 | *
Postmark token | postmark | POSTMARK_SERVER_TOKEN | {uuid} |
Mailjet secret | mailjet | MJ_APIKEY_PRIVATE | {H:32} |
Brevo key | brevo | BREVO_API_KEY | xkeysib-{H:64}-{A:16} | *
Twilio API key | twilio | TWILIO_API_KEY | SK{H:32} | *
Twilio auth token | twilio | TWILIO_AUTH_TOKEN | {H:32} |
Vonage secret | vonage | VONAGE_API_SECRET | {A:16} |
Plivo auth token | plivo | PLIVO_AUTH_TOKEN | {A:40} |
MessageBird key | messagebird | MESSAGEBIRD_ACCESS_KEY | {A:25} |
Datadog API key | datadog | DD_API_KEY | {H:32} |
Datadog app key | datadog | DD_APP_KEY | {H:40} |
New Relic key | newrelic | NEW_RELIC_API_KEY | NRAK-{X:27} | *
New Relic license key | newrelic | NEW_RELIC_LICENSE_KEY | {H:36}NRAL | *
Dynatrace token | dynatrace | DT_API_TOKEN | dt0c01.{X:24}.{X:64} | *
Sentry user token | sentry | SENTRY_AUTH_TOKEN | sntryu_{H:64} | *
Sentry DSN | sentry | SENTRY_DSN | https://{H:32}@o{D:6}.ingest.sentry.io/{D:7} |
Rollbar token | rollbar | ROLLBAR_ACCESS_TOKEN | {H:32} |
Bugsnag key | bugsnag | BUGSNAG_API_KEY | {H:32} |
Honeycomb key | honeycomb | HONEYCOMB_API_KEY | hcaik_{L:58} | *
PagerDuty key | pagerduty | PAGERDUTY_TOKEN | u+{U:18} |
Opsgenie key | opsgenie | OPSGENIE_API_KEY | {uuid} |
Splunk HEC token | splunk | SPLUNK_HEC_TOKEN | {uuid} |
Grafana cloud token | grafana | GRAFANA_CLOUD_TOKEN | glc_{b64:60} | *
Grafana service account | grafana | GRAFANA_SA_TOKEN | glsa_{A:32}_{H:8} | *
Algolia admin key | algolia | ALGOLIA_ADMIN_KEY | {H:32} |
Mapbox secret token | mapbox | MAPBOX_SECRET_TOKEN | sk.eyJ1Ijoi{A:20}IiwiYSI6I{A:20}.{U:22} | *
Contentful PAT | contentful | CONTENTFUL_MANAGEMENT_TOKEN | CFPAT-{U:43} | *
Contentful delivery token | contentful | CONTENTFUL_ACCESS_TOKEN | {U:43} |
Sanity token | sanity | SANITY_API_TOKEN | sk{A:180} |
Storyblok token | storyblok | STORYBLOK_TOKEN | {A:22}tt |
Airtable PAT | airtable | AIRTABLE_TOKEN | pat{A:14}.{H:64} | *
Notion token | notion | NOTION_TOKEN | ntn_{D:11}{A:35} | *
Notion legacy token | notion | NOTION_API_KEY | secret_{A:43} | *
Linear key | linear | LINEAR_API_KEY | lin_api_{A:40} | *
Asana PAT | asana | ASANA_PAT | 2/{D:16}/{D:16}:{H:32} | *
Trello token | trello | TRELLO_TOKEN | ATTA{H:64}{h:8} | *
ClickUp token | clickup | CLICKUP_API_TOKEN | pk_{D:8}_{X:32} | *
Todoist token | todoist | TODOIST_API_TOKEN | {H:40} |
Zendesk token | zendesk | ZENDESK_API_TOKEN | {A:40} |
Intercom token | intercom | INTERCOM_ACCESS_TOKEN | dG9rOj{A:54}= |
HubSpot private app token | hubspot | HUBSPOT_ACCESS_TOKEN | pat-na1-{uuid} | *
Salesforce access token | salesforce | SF_ACCESS_TOKEN | 00D{A:12}!{U:96} | *
Zoho token | zoho | ZOHO_REFRESH_TOKEN | 1000.{H:32}.{H:32} | *
Typeform token | typeform | TYPEFORM_TOKEN | tfp_{U:44}_{U:14} | *
Dropbox token | dropbox | DROPBOX_ACCESS_TOKEN | sl.{U:138} | *
Box token | box | BOX_DEVELOPER_TOKEN | {A:32} |
Figma token | figma | FIGMA_TOKEN | figd_{U:40} | *
Twitter bearer token | twitter | TWITTER_BEARER_TOKEN | AAAAAAAAAAAAAAAAAAAAA{A:80} | *
Twitter API secret | twitter | TWITTER_API_SECRET | {A:50} |
Facebook access token | facebook | FB_ACCESS_TOKEN | EAAB{A:150} | *
Facebook app secret | facebook | FACEBOOK_APP_SECRET | {H:32} |
Instagram token | instagram | INSTAGRAM_ACCESS_TOKEN | IGQV{U:150} | *
LinkedIn client secret | linkedin | LINKEDIN_CLIENT_SECRET | {A:16} |
Spotify client secret | spotify | SPOTIFY_CLIENT_SECRET | {H:32} |
Heroku API key | heroku | HEROKU_API_KEY | {uuid} |
Heroku new key | heroku | HEROKU_API_KEY | HRKU-AA{U:58} | *
Netlify token | netlify | NETLIFY_AUTH_TOKEN | nfp_{A:36} | *
Vercel token | vercel | VERCEL_TOKEN | {A:24} |
Render key | render | RENDER_API_KEY | rnd_{A:32} | *
Railway token | railway | RAILWAY_TOKEN | {uuid} |
Fly.io token | fly | FLY_API_TOKEN | FlyV1 fm2_{b64:200} | *
Fastly token | fastly | FASTLY_API_TOKEN | {U:32} |
Akamai client secret | akamai | AKAMAI_CLIENT_SECRET | {b64:32} |
Terraform Cloud token | terraform | TFE_TOKEN | {A:14}.atlasv1.{U:67} | *
Pulumi token | pulumi | PULUMI_ACCESS_TOKEN | pul-{H:40} | *
Doppler token | doppler | DOPPLER_TOKEN | dp.st.prd.{A:43} | *
Vault token | vault | VAULT_TOKEN | hvs.{U:90} | *
Vault batch token | vault | VAULT_TOKEN | hvb.{U:130} | *
1Password service token | 1password | OP_SERVICE_ACCOUNT_TOKEN | ops_eyJ{U:200} | *
Infisical token | infisical | INFISICAL_TOKEN | st.{uuid}.{H:32}.{H:32} | *
Okta token | okta | OKTA_API_TOKEN | 00{U:40} |
Auth0 client secret | auth0 | AUTH0_CLIENT_SECRET | {U:64} |
Clerk secret | clerk | CLERK_SECRET_KEY | sk_live_{A:40} | *
Supabase token | supabase | SUPABASE_ACCESS_TOKEN | sbp_{H:40} | *
Firebase FCM key | firebase | FCM_SERVER_KEY | AAAA{U:7}:APA91b{U:134} | *
PlanetScale password | planetscale | PLANETSCALE_PASSWORD | pscale_pw_{U:43} | *
Neon key | neon | NEON_API_KEY | napi_{L:64} | *
MongoDB Atlas private key | atlas | ATLAS_PRIVATE_KEY | {uuid} |
Upstash token | upstash | UPSTASH_REDIS_REST_TOKEN | A{U:90}= |
Confluent secret | confluent | CONFLUENT_API_SECRET | {B:64} |
Databricks token | databricks | DATABRICKS_TOKEN | dapi{H:32} | *
Snowflake password | snowflake | SNOWFLAKE_PASSWORD | {pw} |
dbt Cloud token | dbt | DBT_CLOUD_TOKEN | dbtc_{U:56} | *
Prefect key | prefect | PREFECT_API_KEY | pnu_{A:36} | *
Postman key | postman | POSTMAN_API_KEY | PMAK-{H:24}-{H:34} | *
CircleCI token | circleci | CIRCLECI_TOKEN | CCIPAT_{A:22}_{H:40} | *
Travis token | travis | TRAVIS_TOKEN | {U:22} |
Buildkite token | buildkite | BUILDKITE_API_TOKEN | bkua_{H:40} | *
Codecov token | codecov | CODECOV_TOKEN | {uuid} |
SonarQube token | sonar | SONAR_TOKEN | squ_{H:40} | *
Snyk token | snyk | SNYK_TOKEN | {uuid} |
Harness PAT | harness | HARNESS_API_KEY | pat.{U:22}.{H:24}.{A:20} | *
LaunchDarkly SDK key | launchdarkly | LD_SDK_KEY | sdk-{uuid} | *
LaunchDarkly API key | launchdarkly | LD_API_KEY | api-{uuid} | *
Segment write key | segment | SEGMENT_WRITE_KEY | {A:32} |
Mixpanel secret | mixpanel | MIXPANEL_API_SECRET | {H:32} |
Amplitude key | amplitude | AMPLITUDE_API_KEY | {H:32} |
ngrok authtoken | ngrok | NGROK_AUTHTOKEN | 2{A:26}_{A:21} |
Tailscale key | tailscale | TS_AUTHKEY | tskey-auth-{A:12}CNTRL-{A:33} | *
Age secret key | age | AGE_SECRET_KEY | AGE-SECRET-KEY-1{X:58} | *
Django secret key | django | DJANGO_SECRET_KEY | django-insecure-{L:50} | *
Rails secret_key_base | rails | SECRET_KEY_BASE | {H:128} |
Laravel APP_KEY | laravel | APP_KEY | base64:{b64:32} |
Flask SECRET_KEY | flask | FLASK_SECRET_KEY | {H:48} |
Fernet key | fernet | AIRFLOW__CORE__FERNET_KEY | {U:43}= |
Shippo token | shippo | SHIPPO_API_TOKEN | shippo_live_{H:40} | *
Frame.io token | frameio | FRAMEIO_TOKEN | fio-u-{U:64} | *
Beamer key | beamer | BEAMER_API_KEY | b_{U:44}= | *
Readme key | readme | README_API_KEY | rdme_{L:70} | *
Prefixed Scalingo token | scalingo | SCALINGO_API_TOKEN | tk-us-{U:48} | *
Sourcegraph token | sourcegraph | SRC_ACCESS_TOKEN | sgp_{H:40} | *
Defined Networking key | dnkey | DN_API_KEY | dnkey-{X:26}-{X:52} | *
Octopus Deploy key | octopus | OCTOPUS_API_KEY | API-{X:27} | *
Kubernetes service account token | kubernetes | K8S_TOKEN | {jwt} | *
""")

assert len(OTHER) >= 100, len(OTHER)
